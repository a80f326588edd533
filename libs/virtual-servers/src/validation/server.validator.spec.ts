import type { McpDiagnostic } from '#libs/core';
import { validateServers } from './server.validator';

const reserved = {
  mcpPath: '/mcp',
  taken: () => ['/mcp', '/mcp/billing'],
  oauth: false,
  routes: () => [
    { path: '/mcp/admin', what: 'the admin dashboard and API' },
    { path: '/health', what: 'the health probes' },
  ],
};
const problemsOf = (servers: unknown) => {
  const problems: McpDiagnostic[] = [];
  validateServers(
    servers,
    reserved,
    { upstreams: new Set(['crm']), apis: new Set(['billing']) },
    (where, problem, fix) => problems.push({ where, problem, fix }),
  );
  return problems.map((p) => `${p.where}: ${p.problem}`);
};
const server = (extra: Record<string, unknown> = {}) => ({
  name: 'finance',
  path: '/mcp/finance',
  select: [{ from: 'upstream', name: 'crm', entries: ['crm__get_*'] }],
  ...extra,
});

describe('validateServers', () => {
  it('takes a valid server, with its own keys, scopes and limit', () => {
    expect(
      problemsOf([
        server({
          title: 'Finance',
          description: 'Ledger tools',
          credentials: { scopes: ['finance'], apiKeys: [{ principal: 'fin-bot', hash: `sha256:${'a'.repeat(64)}` }] },
          limits: { callsPerMinute: 60 },
        }),
        server({ name: 'local', path: '/mcp/local', select: [{ from: 'local' }, { from: 'rest', scopes: ['x'] }] }),
      ]),
    ).toEqual([]);
  });

  it('names every problem at once: collisions of names and paths, the host’s own paths, the selection, keys', () => {
    expect(
      problemsOf([
        server(),
        server({ path: '/mcp/finance' }),
        server({ name: 'admin', path: '/admin' }),
        server({ name: 'billing', path: '/mcp/billing' }),
        server({ name: 'spaced', path: '/mcp/a b' }),
        server({
          name: 'bad',
          path: '/mcp/bad',
          colour: 'blue',
          select: [
            { from: 'files' },
            { from: 'local', name: 'x' },
            { from: 'upstream', name: 'wiki' },
            { from: 'api', name: 'payroll' },
            { from: 'api', name: 'billing' },
          ],
          credentials: { apiKeys: [{ principal: 'p', hash: 'the-key-itself' }] },
          limits: { callsPerMinute: 0 },
        }),
        server({ name: 'empty', path: '/mcp/empty', select: [] }),
      ]),
    ).toEqual([
      'servers[1].name: "finance" is taken by another server',
      'servers[1].path: /mcp/finance is taken by another server',
      "servers[2].path: must be under the host's MCP path /mcp",
      'servers[3].path: /mcp/billing is the path of an MCP endpoint of the application',
      'servers[4].path: must be a path of letters, digits, . _ ~ - segments (nothing percent-encoded, no empty segment)',
      'servers[5].colour: is not a field of a server',
      'servers[5].credentials.apiKeys[0].hash: must be sha256:<64 hex digits>, the hash of the key',
      'servers[5].select[0].from: must be local, rest, api or upstream',
      'servers[5].select[1].name: only names an API or an upstream',
      'servers[5].select[2].name: no upstream is named "wiki" (the composed server "bad" selects it)',
      'servers[5].select[3].name: no API is named "payroll" (the composed server "bad" selects it)',
      'servers[5].limits.callsPerMinute: must be a positive integer',
      'servers[6].select: must be a non-empty array',
    ]);
  });

  it.each([
    [
      '/mcp/../admin',
      '/mcp/../admin has a "." or ".." segment: a client or proxy that resolves it reaches another path',
    ],
    [
      '/mcp/./finance',
      '/mcp/./finance has a "." or ".." segment: a client or proxy that resolves it reaches another path',
    ],
    [
      '/mcp/finance/..',
      '/mcp/finance/.. has a "." or ".." segment: a client or proxy that resolves it reaches another path',
    ],
    [
      '/mcp/%2e%2e/admin',
      'must be a path of letters, digits, . _ ~ - segments (nothing percent-encoded, no empty segment)',
    ],
    ['/mcp/a%2fb', 'must be a path of letters, digits, . _ ~ - segments (nothing percent-encoded, no empty segment)'],
    [
      '/mcp//finance',
      'must be a path of letters, digits, . _ ~ - segments (nothing percent-encoded, no empty segment)',
    ],
    ['/mcp/admin', '/mcp/admin is the path of the admin dashboard and API (/mcp/admin)'],
    [
      '/mcp/Admin/api/pins/approve',
      '/mcp/Admin/api/pins/approve is under the path of the admin dashboard and API (/mcp/admin)',
    ],
    ['/mcp/BILLING', '/mcp/BILLING is the path of an MCP endpoint of the application'],
  ])('refuses the path %s, naming the field', (path, problem) => {
    expect(problemsOf([server({ path })])).toEqual([`servers[0].path: ${problem}`]);
  });

  it('compares the paths of servers case aside', () => {
    expect(problemsOf([server(), server({ name: 'other', path: '/mcp/Finance' })])).toEqual([
      'servers[1].path: /mcp/Finance is taken by another server',
    ]);
  });
});
