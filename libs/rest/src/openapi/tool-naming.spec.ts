import type { RestOperation } from './rest-operation';
import { nameTools, sanitizeToolName, toolNameOf } from './tool-naming';

const op = (method: RestOperation['method'], path: string, operationId?: string): RestOperation => ({
  method,
  path,
  ...(operationId ? { operationId } : {}),
  tags: [],
  parameters: [],
  responses: [],
  source: {},
});

describe('tool naming', () => {
  it.each([
    ['TicketsController_findOne', 'TicketsController_findOne'],
    ['pets.list', 'pets_list'],
    ['list pets', 'list_pets'],
    ['/pets/{id}', 'pets_id'],
    ['get-pet', 'get-pet'],
    ['  a  /  b  ', 'a_b'],
    ['ünïcode✓', 'n_code'],
  ])('sanitizes %j to %j', (raw, expected) => {
    expect(sanitizeToolName(raw)).toBe(expected);
  });

  it('cuts a name to 128 characters, the prefix counted', () => {
    expect(sanitizeToolName('a'.repeat(200))).toHaveLength(128);
    const name = toolNameOf(op('get', '/x', 'b'.repeat(200)), 'api_');
    expect(name).toBe(`api_${'b'.repeat(124)}`);
  });

  it('derives a name from method and path without an operationId (or one with nothing usable)', () => {
    expect(toolNameOf(op('get', '/api/tickets/{id}'))).toBe('get_api_tickets_by_id');
    expect(toolNameOf(op('post', '/api/tickets/{id}/comments'))).toBe('post_api_tickets_by_id_comments');
    expect(toolNameOf(op('get', '/'))).toBe('get');
    expect(toolNameOf(op('delete', '/v1/files/{file.name}', '...'))).toBe('delete_v1_files_by_file_name');
    expect(toolNameOf(op('get', '/api/tickets'), 'desk_')).toBe('desk_get_api_tickets');
  });

  it('reports two operations whose names collide, naming both and the fix', () => {
    const operations = [op('get', '/a', 'list.items'), op('get', '/b', 'list items'), op('get', '/c', 'other')];
    const { names, diagnostics } = nameTools(operations);
    expect(names).toEqual(['list_items', 'list_items', 'other']);
    expect(diagnostics).toEqual([
      {
        severity: 'error',
        where: 'OpenAPI operation GET /b (list items)',
        problem: 'its tool would be named "list_items", as is the tool of GET /a (list.items)',
        fix: "give one of them another `operationId`, or a name of its own (names: { 'GET /b': '…' })",
      },
    ]);
  });

  it('takes override names by operationId or METHOD /path, as written, and checks them', () => {
    const operations = [op('get', '/a', 'list.items'), op('get', '/b', 'list items'), op('put', '/c')];
    const { names, diagnostics } = nameTools(operations, {
      prefix: 'x_',
      names: { 'GET /b': 'list_b', 'list.items': 'items.list', 'PUT /c': 'bad name!' },
    });
    expect(names).toEqual(['items.list', 'list_b', 'bad name!']);
    expect(diagnostics).toEqual([
      {
        severity: 'error',
        where: 'OpenAPI operation PUT /c',
        problem: 'the name "bad name!" set for it is not a valid MCP tool name',
        fix: 'use 1 to 128 characters of A-Z, a-z, 0-9, "_", "-" and "."',
      },
    ]);
  });

  it('reports a derived name that collides with an override', () => {
    const { diagnostics } = nameTools([op('get', '/a', 'one'), op('get', '/b', 'two')], { names: { two: 'one' } });
    expect(diagnostics.map((d) => d.problem)).toEqual([
      'its tool would be named "one", as is the tool of GET /a (one)',
    ]);
  });
});
