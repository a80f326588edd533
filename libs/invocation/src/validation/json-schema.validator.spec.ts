import { compileJsonSchema, jsonSchemaChecker } from './json-schema.validator';

describe('compileJsonSchema', () => {
  it('validates 2020-12 by default, naming the field and what was expected', () => {
    const validate = compileJsonSchema({
      type: 'object',
      properties: { priority: { enum: ['low', 'high'] }, count: { type: 'integer', minimum: 1 } },
      required: ['count'],
    });
    expect(validate({ count: 2, priority: 'low' })).toEqual({ ok: true, value: { count: 2, priority: 'low' } });
    expect(validate({ priority: 'soon', count: 0 })).toEqual({
      ok: false,
      issues: ['priority: must be equal to one of the allowed values (one of ["low","high"])', 'count: must be >= 1'],
    });
    expect(validate({})).toEqual({ ok: false, issues: ['count: is required'] });
  });

  it("compiles each dialect a $schema names with that dialect's meaning of its keywords", () => {
    // `items` as an array is a tuple in draft-07; 2020-12 calls that `prefixItems`.
    const tuple = { type: 'array', items: [{ type: 'string' }, { type: 'number' }], additionalItems: false };
    const draft07 = compileJsonSchema({ $schema: 'http://json-schema.org/draft-07/schema#', ...tuple });
    expect(draft07(['a', 1]).ok).toBe(true);
    expect(draft07(['a', 'b']).ok).toBe(false);
    expect(draft07(['a', 1, 2]).ok).toBe(false);
    const draft06 = compileJsonSchema({ $schema: 'http://json-schema.org/draft-06/schema#', ...tuple });
    expect(draft06(['a', 'b']).ok).toBe(false);
    const draft2019 = compileJsonSchema({
      $schema: 'https://json-schema.org/draft/2019-09/schema',
      type: 'object',
      properties: { a: { type: 'string' } },
      unevaluatedProperties: false,
    });
    expect(draft2019({ a: 'x' }).ok).toBe(true);
    expect(draft2019({ a: 'x', b: 1 }).ok).toBe(false);
  });

  it('refuses a dialect it cannot validate, saying which ones it can', () => {
    expect(() => compileJsonSchema({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' })).toThrow(
      /"http:\/\/json-schema.org\/draft-04\/schema#" is not a JSON Schema dialect the host validates: use 2020-12 .*draft-07/,
    );
  });
});

describe('jsonSchemaChecker', () => {
  it('refuses what compileJsonSchema refuses, through engine renewals, and keeps nothing of what it checked', () => {
    const check = jsonSchemaChecker();
    for (let n = 0; n < 250; n++) check({ type: 'object', properties: { [`f${n}`]: { type: 'string' } } });
    check({ $id: 'https://upstream.example/tool', type: 'object' });
    expect(() => check({ type: 'object', properties: { a: { type: 'strin' } } })).toThrow(/type/);
    expect(() => check({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' })).toThrow(
      /is not a JSON Schema dialect the host validates/,
    );
    // compileJsonSchema's engine never saw them: the $id is still free there (a second one would be refused).
    expect(compileJsonSchema({ $id: 'https://upstream.example/tool', type: 'object' })({}).ok).toBe(true);
  });
});
