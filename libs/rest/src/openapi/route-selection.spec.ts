import type { RestOperation } from './rest-operation';
import { pathGlob, selectOperations } from './route-selection';

const op = (path: string, operationId: string, tags: string[] = []): RestOperation => ({
  method: 'get',
  path,
  operationId,
  tags,
  parameters: [],
  responses: [],
  source: {},
});

const operations = [
  op('/api/tickets', 'list', ['tickets']),
  op('/api/tickets/{id}', 'get', ['tickets']),
  op('/api/tickets/{id}/comments', 'comments', ['tickets', 'comments']),
  op('/api/customers/{id}', 'customer', ['customers']),
  op('/health', 'health'),
];
const ids = (selected: RestOperation[]) => selected.map((o) => o.operationId);

describe('pathGlob', () => {
  it.each([
    ['/api/tickets/**', '/api/tickets', true],
    ['/api/tickets/**', '/api/tickets/{id}/comments', true],
    ['/api/tickets/**', '/api/ticketsX', false],
    ['/api/*', '/api/tickets', true],
    ['/api/*', '/api/tickets/{id}', false],
    ['/api/*/{id}', '/api/customers/{id}', true],
    ['/api/tick*', '/api/tickets', true],
    ['/api/**/comments', '/api/comments', true],
    ['/api/**/comments', '/api/tickets/{id}/comments', true],
    ['**/comments', '/api/tickets/{id}/comments', true],
    ['**', '/health', true],
    ['/API/tickets', '/api/tickets', false],
    ['/api/tickets/{id}', '/api/tickets/{id}', true],
    ['/api/tickets.json', '/api/ticketsXjson', false],
  ])('%s on %s → %s', (pattern, path, expected) => {
    expect(pathGlob(pattern).test(path)).toBe(expected);
  });
});

describe('selectOperations', () => {
  it('selects nothing without a rule', () => {
    expect(selectOperations(operations)).toEqual({ selected: [], unmatched: [] });
    expect(selectOperations(operations, { exclude: { tags: ['tickets'] } }).selected).toEqual([]);
  });

  it('selects by tag, path glob or operationId (any rule), in the operations order', () => {
    const { selected, unmatched } = selectOperations(operations, {
      tags: ['customers'],
      paths: ['/health'],
      operationIds: ['get'],
    });
    expect(ids(selected)).toEqual(['get', 'customer', 'health']);
    expect(unmatched).toEqual([]);
  });

  it('takes excluded operations out again', () => {
    const { selected } = selectOperations(operations, {
      paths: ['/api/tickets/**'],
      exclude: { tags: ['comments'], operationIds: ['list'] },
    });
    expect(ids(selected)).toEqual(['get']);
  });

  it('returns the rules that matched nothing, include and exclude ones', () => {
    const { unmatched } = selectOperations(operations, {
      tags: ['tickets', 'tikets'],
      paths: ['/api/tiket/**'],
      operationIds: ['nope'],
      exclude: { paths: ['/admin/**'], operationIds: ['list'] },
    });
    expect(unmatched).toEqual([
      { kind: 'tags', value: 'tikets', exclude: false },
      { kind: 'paths', value: '/api/tiket/**', exclude: false },
      { kind: 'operationIds', value: 'nope', exclude: false },
      { kind: 'paths', value: '/admin/**', exclude: true },
    ]);
  });
});
