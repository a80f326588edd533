import { schemaPortabilityIssues } from './schema-portability';

describe('schemaPortabilityIssues', () => {
  it('finds nothing in a schema every strict subset takes (anyOf with null, additionalProperties: false)', () => {
    expect(
      schemaPortabilityIssues({
        type: 'object',
        properties: {
          assignee: { description: 'who', anyOf: [{ type: 'string' }, { type: 'null' }] },
          tags: { type: 'array', items: { type: 'string' } },
          note: { $ref: '#/$defs/Note' },
        },
        required: ['assignee'],
        additionalProperties: false,
        $defs: { Note: { type: 'object', properties: { text: { type: 'string' } }, unevaluatedProperties: false } },
      }),
    ).toEqual([]);
  });

  it('names each type list by its JSON pointer, with the anyOf to write', () => {
    expect(
      schemaPortabilityIssues({
        type: 'object',
        properties: {
          'a/b~c': { type: ['string', 'null'] },
          list: { type: 'array', items: { type: ['integer', 'string'] } },
        },
      }),
    ).toEqual([
      {
        pointer: '/properties/a~1b~0c',
        problem:
          '`type` is a list (["string","null"]), which a one-type schema dialect (Gemini\'s function declarations) cannot read',
        fix: 'write "anyOf": [{"type":"string"},{"type":"null"}], each type\'s keywords in its branch (DTO, zod and OpenAPI schemas are given this form by the host)',
      },
      {
        pointer: '/properties/list/items',
        problem:
          '`type` is a list (["integer","string"]), which a one-type schema dialect (Gemini\'s function declarations) cannot read',
        fix: 'write "anyOf": [{"type":"integer"},{"type":"string"}], each type\'s keywords in its branch (DTO, zod and OpenAPI schemas are given this form by the host)',
      },
    ]);
  });

  it('finds boolean schemas, remote references and schemas that constrain nothing', () => {
    const issues = schemaPortabilityIssues({
      type: 'object',
      properties: {
        anything: true,
        never: false,
        remote: { $ref: 'https://schemas.example.com/address.json' },
        free: { description: 'any value' },
        negated: { not: {} },
      },
      prefixItems: [{ type: 'string' }],
    });
    expect(issues.map(({ pointer, fix }) => [pointer, fix])).toEqual([
      ['/properties/anything', 'write {} (or better, the value\'s "type")'],
      ['/properties/never', 'write {"not": {}} (or leave the entry out where absence means the same)'],
      ['/properties/remote', 'put the referenced schema under "$defs" and refer to it as "#/$defs/<name>"'],
      [
        '/properties/free',
        'declare what the value is, e.g. {"type": "object"} for a free-form object or {"type": "string"}',
      ],
    ]);
  });

  it('leaves a relative $ref alone where the schema names its parts with $id', () => {
    expect(
      schemaPortabilityIssues({
        $id: 'https://desk.example/ticket',
        type: 'object',
        properties: { note: { $ref: 'note' } },
        $defs: { note: { $id: 'note', type: 'string' } },
      }),
    ).toEqual([]);
  });
});
