import type { JsonSchemaObject } from '#libs/core';
import { toolHeaderParams } from './tool-header-params';

function read(schema: JsonSchemaObject) {
  const problems: string[] = [];
  const params = toolHeaderParams(schema, ({ problem }) => problems.push(problem));
  return { params, problems };
}

describe('toolHeaderParams', () => {
  it('finds the marked parameters, nested objects included, with their path and type', () => {
    const { params, problems } = read({
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        query: { type: 'string' },
        target: {
          type: 'object',
          properties: {
            shard: { type: 'integer', 'x-mcp-header': 'Shard' },
            dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' },
          },
        },
        // A property *named* like the keyword is a name, not an annotation.
        'x-mcp-header': { type: 'string', default: { 'x-mcp-header': 'data, not a schema' } },
      },
    });
    expect(problems).toEqual([]);
    expect(params).toEqual([
      { header: 'Region', path: ['region'], type: 'string' },
      { header: 'Shard', path: ['target', 'shard'], type: 'integer' },
      { header: 'Dry-Run', path: ['target', 'dry'], type: 'boolean' },
    ]);
  });

  it('reports every violation of the spec constraints', () => {
    const { params, problems } = read({
      type: 'object',
      'x-mcp-header': 'Root',
      properties: {
        empty: { type: 'string', 'x-mcp-header': '' },
        spaced: { type: 'string', 'x-mcp-header': 'My Region' },
        ratio: { type: 'number', 'x-mcp-header': 'Ratio' },
        tags: { type: 'array', items: { type: 'string', 'x-mcp-header': 'Tag' } },
        either: { anyOf: [{ type: 'string', 'x-mcp-header': 'Either' }] },
        region: { type: 'string', 'x-mcp-header': 'Region' },
        zone: { type: 'string', 'x-mcp-header': 'REGION' },
        address: { $ref: '#/$defs/address' },
      },
      $defs: { address: { type: 'object', properties: { city: { type: 'string', 'x-mcp-header': 'City' } } } },
    });
    expect(params).toEqual([{ header: 'Region', path: ['region'], type: 'string' }]);
    expect(problems).toEqual([
      'the input schema has "x-mcp-header" at /, which is not a property reached from the root through "properties" alone (not items, anyOf/oneOf/allOf, if/then, $ref or $defs)',
      '"x-mcp-header" of "empty" is "", not an HTTP header-name token',
      '"x-mcp-header" of "spaced" is "My Region", not an HTTP header-name token',
      '"ratio" has "x-mcp-header" but its type is "number"; only string, integer and boolean parameters can be headers',
      'the input schema has "x-mcp-header" at /properties/tags/items, which is not a property reached from the root through "properties" alone (not items, anyOf/oneOf/allOf, if/then, $ref or $defs)',
      'the input schema has "x-mcp-header" at /properties/either/anyOf/0, which is not a property reached from the root through "properties" alone (not items, anyOf/oneOf/allOf, if/then, $ref or $defs)',
      '"x-mcp-header" "REGION" is used by "region" and "zone" (header names ignore case)',
      'the input schema has "x-mcp-header" at /$defs/address/properties/city, which is not a property reached from the root through "properties" alone (not items, anyOf/oneOf/allOf, if/then, $ref or $defs)',
    ]);
  });
});
