import { resolveGatewayOptions } from './gateway.options';

function resolve(gateway: unknown) {
  const problems: { option: string; problem: string; fix: string }[] = [];
  const options = resolveGatewayOptions({ gateway }, (option, problem, fix) => problems.push({ option, problem, fix }));
  for (const { fix } of problems) expect(fix.trim()).not.toBe('');
  return { ...options, problems, options: problems.map(({ option }) => option) };
}

const stdio = { type: 'stdio', command: 'node', args: ['server.js'] };

describe('resolveGatewayOptions', () => {
  it('has no upstream without the option', () => {
    expect(resolve(undefined)).toMatchObject({ upstreams: [], problems: [] });
  });

  it('fills in the defaults of an upstream', () => {
    const { upstreams, problems } = resolve({ upstreams: [{ name: 'wiki', transport: stdio }] });
    expect(problems).toEqual([]);
    expect(upstreams).toEqual([
      {
        name: 'wiki',
        transport: stdio,
        protocolVersion: 'auto',
        prefix: 'wiki',
        separator: '__',
        tools: {},
        prompts: {},
        resources: {},
        scopes: [],
        roles: [],
        required: true,
        timeoutMs: 30_000,
        failureThreshold: 5,
        openMs: 30_000,
        initialDelayMs: 500,
        maxDelayMs: 30_000,
        confirm: 'destructive',
        limits: {
          maxResponseBytes: 10 * 1024 * 1024,
          maxListEntries: 1_000,
          maxListPages: 100,
          maxEntryBytes: 64 * 1024,
          maxConnections: 32,
        },
        credential: { mode: 'service' },
        where: 'gateway.upstreams[0]',
      },
    ]);
  });

  it('reports every problem of every upstream, with the option it is in, and leaves those upstreams out', () => {
    const { upstreams, options } = resolve({
      upstreams: [
        { name: 'ok', transport: { type: 'http', url: 'https://wiki.example/mcp' } },
        { name: '9lives', transport: { type: 'http', url: 'ftp://x', bearer: undefined }, prefix: 'a b' },
        {
          name: 'ok',
          transport: { type: 'pipe' },
          scopes: 'wiki',
          tools: { only: ['x'] },
          protocolVersion: '2024-11-05',
        },
        {
          name: 'slow',
          transport: { ...stdio, env: { TOKEN: undefined } },
          reconnect: { initialDelayMs: 5_000, maxDelayMs: 100 },
        },
      ],
      extra: true,
    });
    expect(upstreams.map(({ name }) => name)).toEqual(['ok']);
    expect([...options].sort()).toEqual(
      [
        'gateway.extra',
        'gateway.upstreams[1].name',
        'gateway.upstreams[1].prefix',
        'gateway.upstreams[1].transport.url',
        'gateway.upstreams[1].transport.bearer',
        'gateway.upstreams[2].transport.type',
        'gateway.upstreams[2].tools.only',
        'gateway.upstreams[2].scopes',
        'gateway.upstreams[2].protocolVersion',
        // The second "ok": its name, and the namespace its name gives.
        'gateway.upstreams[2].name',
        'gateway.upstreams[2].prefix',
        'gateway.upstreams[3].transport.env',
        'gateway.upstreams[3].reconnect',
      ].sort(),
    );
  });

  it('takes limits and a confirmation policy, and reports each bad one with its fix', () => {
    const limits = {
      maxResponseBytes: 2_048,
      maxListEntries: 50,
      maxListPages: 5,
      maxEntryBytes: 4_096,
      maxConnections: 4,
    };
    const { upstreams, problems } = resolve({
      upstreams: [
        { name: 'strict', transport: stdio, confirm: 'none', limits },
        {
          name: 'wrong',
          transport: stdio,
          confirm: 'always',
          limits: { maxResponseBytes: 10, maxConnections: 0, maxListPages: 1.5, maxEntries: 3 },
        },
        { name: 'odd', transport: stdio, limits: 'small' },
      ],
    });
    expect(upstreams).toEqual([expect.objectContaining({ name: 'strict', confirm: 'none', limits })]);
    expect(problems).toEqual([
      {
        option: 'gateway.upstreams[1].limits.maxEntries',
        problem: 'is not a known option',
        fix: 'remove it; known limits are: maxResponseBytes, maxListEntries, maxListPages, maxEntryBytes, maxConnections',
      },
      {
        option: 'gateway.upstreams[1].confirm',
        problem: `must be 'destructive' or 'none', got "always"`,
        fix: "e.g. confirm: 'none' for an upstream that confirms its own destructive tools",
      },
      {
        option: 'gateway.upstreams[1].limits.maxResponseBytes',
        problem: 'must be an integer from 1024 to 1073741824, got 10',
        fix: 'set maxResponseBytes: 10485760 (the default) or another integer from 1024 to 1073741824',
      },
      {
        option: 'gateway.upstreams[1].limits.maxListPages',
        problem: 'must be an integer from 1 to 10000, got 1.5',
        fix: 'set maxListPages: 100 (the default) or another integer from 1 to 10000',
      },
      {
        option: 'gateway.upstreams[1].limits.maxConnections',
        problem: 'must be an integer from 1 to 1024, got 0',
        fix: 'set maxConnections: 32 (the default) or another integer from 1 to 1024',
      },
      { option: 'gateway.upstreams[2].limits', problem: 'must be an object', fix: 'e.g. limits: {}' },
    ]);
  });

  it('reports two upstreams whose namespaces are the same', () => {
    const { options, problems } = resolve({
      upstreams: [
        { name: 'a', prefix: 'x', transport: stdio },
        { name: 'b', prefix: 'x', transport: stdio },
      ],
    });
    expect(options).toEqual(['gateway.upstreams[1].prefix']);
    expect(problems[0].problem).toMatch(/namespace "x__" that the upstream a has too/);
  });
});
