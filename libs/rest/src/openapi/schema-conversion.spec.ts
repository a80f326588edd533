import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { JsonSchemaObject } from '#libs/core';
import type { OpenApiDocument } from './openapi-document';
import { convertSchema, SchemaConverter } from './schema-conversion';

/** Strict 2020-12 compilation: an unknown keyword or format in a produced schema fails the test. */
function compile(schema: JsonSchemaObject) {
  const ajv = new Ajv2020({ strict: true, strictTypes: false, strictTuples: false, strictRequired: false });
  addFormats(ajv);
  for (const format of ['int32', 'int64', 'float', 'double', 'byte', 'binary', 'password']) ajv.addFormat(format, true);
  ajv.addKeyword('discriminator');
  return ajv.compile(schema);
}

const doc = (schemas: Record<string, unknown>) => ({ openapi: '3.0.3', components: { schemas } }) as OpenApiDocument;

describe('convertSchema', () => {
  it('turns 3.0 nullable into anyOf with a null branch (the portable spelling), the enum in its own branch', () => {
    const { schema, problems } = convertSchema(
      { type: 'string', enum: ['a', 'b'], nullable: true, maxLength: 1, description: 'A letter' },
      doc({}),
      'input',
    );
    expect(problems).toEqual([]);
    expect(schema).toEqual({
      description: 'A letter',
      anyOf: [{ type: 'string', enum: ['a', 'b'], maxLength: 1 }, { type: 'null' }],
    });
    const validate = compile(schema);
    expect(validate(null)).toBe(true);
    expect(validate('a')).toBe(true);
    expect(validate('c')).toBe(false);
  });

  it('gives nullable properties of components the same spelling: no type list anywhere', () => {
    const document = doc({
      Ticket: {
        type: 'object',
        required: ['assignee'],
        properties: {
          assignee: { type: 'string', nullable: true },
          tags: { type: 'array', items: { type: 'string' }, nullable: true },
        },
      },
    });
    const { schema } = convertSchema({ $ref: '#/components/schemas/Ticket' }, document, 'output');
    expect(schema).toEqual({
      $ref: '#/$defs/Ticket',
      $defs: {
        Ticket: {
          type: 'object',
          required: ['assignee'],
          properties: {
            assignee: { anyOf: [{ type: 'string' }, { type: 'null' }] },
            tags: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }] },
          },
        },
      },
    });
    const validate = compile(schema);
    expect(validate({ assignee: null, tags: null })).toBe(true);
    expect(validate({ assignee: 'ana', tags: ['x'] })).toBe(true);
    expect(validate({ assignee: 1 })).toBe(false);
  });

  it('turns nullable without a single type (a $ref, allOf) into anyOf with null', () => {
    const document = doc({ Pet: { type: 'object', properties: { id: { type: 'integer' } } } });
    const { schema } = convertSchema(
      { allOf: [{ $ref: '#/components/schemas/Pet' }], nullable: true },
      document,
      'output',
    );
    expect(schema).toEqual({
      anyOf: [{ allOf: [{ $ref: '#/$defs/Pet' }] }, { type: 'null' }],
      $defs: { Pet: { type: 'object', properties: { id: { type: 'integer' } } } },
    });
    const validate = compile(schema);
    expect(validate(null)).toBe(true);
    expect(validate({ id: 'x' })).toBe(false);
  });

  it('moves example to examples and drops xml, externalDocs and x- extensions, keeping discriminator', () => {
    const { schema } = convertSchema(
      {
        type: 'object',
        example: { id: 1 },
        xml: { name: 'pet' },
        externalDocs: { url: 'https://example.com' },
        'x-swagger-router-model': 'io.Pet',
        discriminator: { propertyName: 'kind', mapping: { cat: '#/components/schemas/Cat' } },
        properties: { 'x-not-an-extension': { type: 'string', example: 'v' } },
      },
      doc({}),
      'output',
    );
    expect(schema).toEqual({
      type: 'object',
      examples: [{ id: 1 }],
      discriminator: { propertyName: 'kind', mapping: { cat: '#/components/schemas/Cat' } },
      properties: { 'x-not-an-extension': { type: 'string', examples: ['v'] } },
    });
    compile(schema);
  });

  it("turns 3.0's boolean exclusiveMinimum / exclusiveMaximum into 2020-12 numbers", () => {
    const { schema } = convertSchema(
      { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: false },
      doc({}),
      'input',
    );
    expect(schema).toEqual({ type: 'number', exclusiveMinimum: 0, maximum: 10 });
    const validate = compile(schema);
    expect(validate(0)).toBe(false);
    expect(validate(10)).toBe(true);
  });

  it('collects only the reachable components into $defs, recursive ones included', () => {
    const document = doc({
      Node: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string' },
          children: { type: 'array', items: { $ref: '#/components/schemas/Node' } },
        },
      },
      Tree: { type: 'object', properties: { root: { $ref: '#/components/schemas/Node' } } },
      Unused: { type: 'string' },
    });
    const { schema, problems } = convertSchema({ $ref: '#/components/schemas/Tree' }, document, 'output');
    expect(problems).toEqual([]);
    expect(Object.keys(schema.$defs as object).sort()).toEqual(['Node', 'Tree']);
    expect(schema.$ref).toBe('#/$defs/Tree');
    const validate = compile(schema);
    expect(validate({ root: { name: 'a', children: [{ name: 'b', children: [] }] } })).toBe(true);
    expect(validate({ root: { name: 'a', children: [{ children: [] }] } })).toBe(false);
  });

  it('escapes component names in the $defs pointer (~0, ~1) and reads escaped refs', () => {
    const document = doc({ 'a/b~c': { type: 'integer' } });
    const { schema, problems } = convertSchema({ $ref: '#/components/schemas/a~1b~0c' }, document, 'input');
    expect(problems).toEqual([]);
    expect(schema).toEqual({ $ref: '#/$defs/a~1b~0c', $defs: { 'a/b~c': { type: 'integer' } } });
    const validate = compile(schema);
    expect(validate(1)).toBe(true);
    expect(validate('1')).toBe(false);
  });

  it('inlines a local ref that is not a component schema', () => {
    const document: OpenApiDocument = {
      openapi: '3.1.0',
      components: { schemas: { Pet: { type: 'object', properties: { id: { type: 'integer', minimum: 1 } } } } },
    };
    const { schema } = convertSchema({ $ref: '#/components/schemas/Pet/properties/id' }, document, 'input');
    expect(schema).toEqual({ type: 'integer', minimum: 1 });
  });

  it('reports external and dangling refs and lets that part accept anything', () => {
    const { schema, problems } = convertSchema(
      {
        type: 'object',
        properties: {
          a: { $ref: 'other.yaml#/Pet' },
          b: { $ref: '#/components/schemas/Missing' },
        },
      },
      doc({}),
      'input',
    );
    expect(problems).toEqual([
      '`$ref: other.yaml#/Pet` points outside the document (external references are not followed)',
      '`$ref: #/components/schemas/Missing` points at nothing in the document',
    ]);
    expect(schema).toEqual({ type: 'object', properties: { a: {}, b: {} } });
    compile(schema);
  });

  it('drops readOnly properties from input schemas and writeOnly ones from output schemas', () => {
    const document = doc({
      Id: { type: 'integer', readOnly: true },
      User: {
        type: 'object',
        required: ['id', 'name', 'password'],
        properties: {
          id: { $ref: '#/components/schemas/Id' },
          created: { type: 'string', readOnly: true },
          name: { type: 'string' },
          password: { type: 'string', writeOnly: true },
        },
      },
    });
    const converter = new SchemaConverter(document);
    const input = converter.convert({ $ref: '#/components/schemas/User' }, 'input').schema;
    const output = converter.convert({ $ref: '#/components/schemas/User' }, 'output').schema;
    const user = (schema: JsonSchemaObject) => (schema.$defs as Record<string, JsonSchemaObject>).User;
    expect(Object.keys(user(input).properties ?? {})).toEqual(['name', 'password']);
    expect(user(input).required).toEqual(['name', 'password']);
    expect(Object.keys(user(output).properties ?? {})).toEqual(['id', 'created', 'name']);
    expect(user(output).required).toEqual(['id', 'name']);
    expect(compile(input)({ name: 'n', password: 'p' })).toBe(true);
    expect(compile(output)({ id: 1, name: 'n' })).toBe(true);
  });

  it('turns a draft 4 tuple (items list, additionalItems) into prefixItems and items', () => {
    const { schema } = convertSchema(
      { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false },
      doc({}),
      'input',
    );
    expect(schema).toEqual({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false });
    const validate = compile(schema);
    expect(validate(['a', 1])).toBe(true);
    expect(validate(['a', 1, 2])).toBe(false);
  });

  it('keeps 3.1 schemas valid 2020-12, a type list in its portable spelling accepting the same values', () => {
    const { schema } = convertSchema({ type: ['string', 'null'], examples: ['x'] }, { openapi: '3.1.0' }, 'input');
    expect(schema).toEqual({ examples: ['x'], anyOf: [{ type: 'string' }, { type: 'null' }] });
    const validate = compile(schema);
    expect([validate('x'), validate(null), validate(1)]).toEqual([true, true, false]);
    // With a const only one branch can hold: it stands alone.
    const single = convertSchema(
      { type: ['string', 'null'], examples: ['x'], const: 'x' },
      { openapi: '3.1.0' },
      'input',
    );
    expect(single.schema).toEqual({ examples: ['x'], type: 'string', const: 'x' });
    compile(single.schema);
  });
});
