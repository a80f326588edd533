import { McpStartupError } from '#libs/core';
import { resolveMcpOptions } from './mcp-options.resolver';

describe('resolveMcpOptions', () => {
  it('fills every default, in the slice of the library that reads it', () => {
    const { protocol, hosting, security, invocation, operations } = resolveMcpOptions({
      name: 'desk',
      version: '1.0.0',
    });
    expect(protocol).toEqual({
      server: { name: 'desk', version: '1.0.0', title: undefined, instructions: undefined },
      mode: 'stateful',
      pageSize: 100,
      limits: {
        maxDepth: 32,
        maxStringLength: 100_000,
        maxArrayLength: 10_000,
        maxArguments: 100,
        maxUriLength: 2_048,
      },
      sessions: { idleTtlMs: 1_800_000, max: 10_000, maxPerPrincipal: 100, maxSubscriptions: 100 },
      tools: { timeoutMs: 30_000, confirmDestructive: false },
      tasks: { ttlMs: 3_600_000, maxPerPrincipal: 100 },
      requestState: { secrets: undefined, ttlMs: 600_000 },
      cache: undefined,
    });
    expect(hosting).toEqual({
      path: '/mcp',
      http: true,
      stdio: false,
      routeThroughExpress: false,
      bodyLimit: 1_048_576,
      cors: undefined,
      shutdownTimeoutMs: 10_000,
    });
    expect(security).toMatchObject({
      auth: { mode: 'none' },
      authFailureLimit: { limit: 20, windowMs: 60_000 },
      audit: undefined,
      stdioPrincipal: { id: 'anonymous' },
    });
    expect(security.redactor).toBeDefined();
    expect(security.originHost.allowedOrigins).toBeUndefined();
    expect([...security.originHost.allowedHosts!]).toEqual(['localhost', '127.0.0.1', '[::1]']);
    expect(invocation).toMatchObject({ unknownArguments: 'refuse', approvals: { ttlMs: 600_000, waitMs: 20_000 } });
    // The approval page lives on the dashboard: loopback callers get a link without publicUrl.
    expect(invocation.approvals.pageOf?.({ host: 'localhost:3000' })).toBe('http://localhost:3000/admin');
    expect(operations).toMatchObject({
      http: true,
      healthChecks: [],
      admin: { path: '/admin' },
      approvals: { roles: ['admin', 'approver'], allowSelfApproval: true },
    });
  });

  it('has no redactor when the built-in patterns are off and none are given', () => {
    expect(
      resolveMcpOptions({ name: 'a', version: '1', redact: { builtIn: false } }).security.redactor,
    ).toBeUndefined();
  });

  it('parses sizes and host wildcards', () => {
    const { hosting, security } = resolveMcpOptions({
      name: 'a',
      version: '1',
      bodyLimit: '512kb',
      allowedHosts: ['*'],
      allowedOrigins: ['https://App.example.com'],
    });
    expect(hosting.bodyLimit).toBe(524_288);
    expect(security.originHost.allowedHosts).toBeUndefined();
    expect([...security.originHost.allowedOrigins!]).toEqual(['https://app.example.com']);
  });

  it('reports every invalid option at once, each with a fix', () => {
    let error: unknown;
    try {
      resolveMcpOptions({
        name: '',
        version: '1',
        path: 'mcp/',
        mode: 'sticky' as 'stateful',
        maxSessions: 0,
        bodyLimit: 'lots',
        allowedOrigins: ['https://ok.example/path'],
        stdio: 'yes' as unknown as boolean,
        colour: 'blue',
      } as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(McpStartupError);
    const diagnostics = (error as McpStartupError).diagnostics;
    expect(diagnostics.map((d) => d.where)).toEqual([
      'McpModule option "colour"',
      'McpModule option "name"',
      'McpModule option "mode"',
      'McpModule option "maxSessions"',
      'McpModule option "path"',
      'McpModule option "bodyLimit"',
      'McpModule option "stdio"',
      'McpModule option "allowedOrigins"',
    ]);
    expect((error as Error).message).toContain("fix: use 'stateful' or 'stateless'");
    expect((error as Error).message).toContain("fix: give bytes (1048576) or a string like '512kb' or '4mb'");
  });

  it('reports trustProxy and rest.confirm problems with all the others, each with its fix', () => {
    let error: unknown;
    try {
      resolveMcpOptions({
        name: 'a',
        version: '1',
        mode: 'stateles',
        trustProxy: ['10.0.0.0/8', 'balancer'],
        rest: { confirm: 'sometimes' },
      } as never);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(McpStartupError);
    expect((error as McpStartupError).diagnostics.map(({ where, problem }) => `${where}: ${problem}`)).toEqual([
      'McpModule option "mode": "stateles" is not a mode',
      'McpModule option "trustProxy[1]": "balancer" is not an IP address or CIDR range',
      "McpModule option \"rest.confirm\": must be 'destructive', 'writes' or 'none', not \"sometimes\"",
    ]);
    const { security } = resolveMcpOptions({ name: 'a', version: '1', trustProxy: ['10.0.0.0/8'] });
    expect(security.clientAddresses.trustsProxies).toBe(true);
  });

  it('turns governance on for an upstream or API declared with pin, and reports a bad pin with the rest', () => {
    const upstream = { name: 'wiki', transport: { type: 'http' as const, url: 'https://wiki.example/mcp' } };
    expect(resolveMcpOptions({ name: 'a', version: '1', gateway: { upstreams: [upstream] } }).governance).toBe(
      undefined,
    );
    const pinned = resolveMcpOptions({ name: 'a', version: '1', gateway: { upstreams: [{ ...upstream, pin: true }] } });
    expect(pinned.gateway.upstreams[0].pin).toEqual({});
    expect(pinned.governance).toMatchObject({ policies: [], pinning: { newEntries: 'accept', resyncMs: 10_000 } });
    expect(() =>
      resolveMcpOptions({
        name: 'a',
        version: '1',
        gateway: { upstreams: [{ ...upstream, pin: { newEntries: 'later' } }] },
        governance: { pinning: { resyncMs: 1 } },
      } as never),
    ).toThrow(
      /gateway\.upstreams\[0\]\.pin\.newEntries.*must be one of accept, hold[\s\S]*governance\.pinning\.resyncMs.*must be an integer of at least 100/,
    );
  });

  it('takes the default caching hints of 2026-07-28 results, the scope private unless said', () => {
    expect(resolveMcpOptions({ name: 'a', version: '1', cache: { ttlMs: 60_000 } }).protocol.cache).toEqual({
      ttlMs: 60_000,
      scope: 'private',
    });
  });

  it('refuses caching hints a client could not use, saying how to fix them', () => {
    expect(() =>
      resolveMcpOptions({ name: 'a', version: '1', cache: { ttlMs: -5, scope: 'everyone' } } as never),
    ).toThrow(
      new McpStartupError([
        {
          where: 'McpModule option "cache"',
          problem: 'ttlMs must be an integer ≥ 0 (milliseconds), got -5',
          fix: "e.g. cache: { ttlMs: 60_000, scope: 'public' }",
        },
        {
          where: 'McpModule option "cache"',
          problem: `scope must be 'public' or 'private', got "everyone"`,
          fix: "use scope: 'private' (the default) or 'public'",
        },
      ]),
    );
  });
});

describe('resolveMcpOptions: requestState', () => {
  const SECRET = 'a-request-state-secret-of-32-bytes!';
  const resolve = (requestState: unknown) => resolveMcpOptions({ name: 'a', version: '1', requestState } as never);
  const problemsOf = (requestState: unknown) => {
    try {
      resolve(requestState);
      return [];
    } catch (error) {
      return (error as McpStartupError).diagnostics.map(({ where, problem }) => `${where}: ${problem}`);
    }
  };

  it('takes one secret or a list of them (the first seals), and a time to live', () => {
    expect(resolve({ secret: SECRET }).protocol.requestState).toEqual({ secrets: [SECRET], ttlMs: 600_000 });
    expect(resolve({ secret: [SECRET, `old-${SECRET}`], ttlMs: 60_000 }).protocol.requestState).toEqual({
      secrets: [SECRET, `old-${SECRET}`],
      ttlMs: 60_000,
    });
    expect(resolve({ ttlMs: 5_000 }).protocol.requestState).toEqual({ secrets: undefined, ttlMs: 5_000 });
  });

  it('refuses a short or missing secret, saying how to make one', () => {
    expect(problemsOf({ secret: 'short' })).toEqual([
      'McpModule option "requestState.secret": is 5 bytes long; at least 32 are needed',
    ]);
    expect(problemsOf({ secret: [SECRET, 42], ttlMs: 10, colour: 1 })).toEqual([
      'McpModule option "requestState.colour": is not a known option',
      'McpModule option "requestState.ttlMs": must be an integer ≥ 1000, got 10',
      'McpModule option "requestState.secret[1]": must be a string',
    ]);
    expect(problemsOf({ secret: [] })).toEqual(['McpModule option "requestState.secret": is an empty list']);
    expect(problemsOf('secret')).toEqual(['McpModule option "requestState": must be an object']);
    try {
      resolve({ secret: 'short' });
    } catch (error) {
      expect((error as Error).message).toContain('openssl rand -base64 48');
    }
    expect.assertions(5);
  });
});

describe('resolveMcpOptions: admin', () => {
  const problemsOf = (admin: unknown, extra: Record<string, unknown> = {}) => {
    try {
      resolveMcpOptions({ name: 'a', version: '1', admin, ...extra } as never);
      return [];
    } catch (error) {
      return (error as McpStartupError).diagnostics.map(({ where, problem }) => `${where}: ${problem}`);
    }
  };

  it('serves the dashboard at /admin with a 5-minute window unless turned off', () => {
    expect(resolveMcpOptions({ name: 'a', version: '1' }).operations.admin).toEqual({
      path: '/admin',
      statsWindowMs: 300_000,
    });
    expect(resolveMcpOptions({ name: 'a', version: '1', admin: true }).operations.admin).toEqual({
      path: '/admin',
      statsWindowMs: 300_000,
    });
    expect(resolveMcpOptions({ name: 'a', version: '1', admin: false }).operations.admin).toBeUndefined();
    expect(
      resolveMcpOptions({ name: 'a', version: '1', admin: { path: '/ops/mcp', statsWindowMinutes: 15 } }).operations
        .admin,
    ).toEqual({ path: '/ops/mcp', statsWindowMs: 900_000 });
  });

  it('reports each bad admin option with a fix', () => {
    expect(problemsOf('yes')).toEqual(['McpModule option "admin": must be false or an object, got "yes"']);
    expect(problemsOf({ path: 'admin/', statsWindowMinutes: 0, colour: 1 })).toEqual([
      'McpModule option "admin.colour": is not a known option',
      'McpModule option "admin.path": "admin/" is not an absolute URL path',
      'McpModule option "admin.statsWindowMinutes": must be an integer from 1 to 1440, got 0',
    ]);
    expect(problemsOf({ path: '/' })).toEqual(['McpModule option "admin.path": "/" is not an absolute URL path']);
    expect(problemsOf({ path: '/mcp' })).toEqual([
      'McpModule option "admin.path": "/mcp" is the path of the MCP endpoint',
    ]);
    expect(problemsOf({ path: '/x' }, { path: '/x' })).toEqual([
      'McpModule option "admin.path": "/x" is the path of the MCP endpoint',
    ]);
  });
});

describe('resolveMcpOptions: metrics', () => {
  const problemsOf = (metrics: unknown, extra: Record<string, unknown> = {}) => {
    try {
      resolveMcpOptions({ name: 'a', version: '1', metrics, ...extra } as never);
      return [];
    } catch (error) {
      return (error as McpStartupError).diagnostics.map(({ where, problem }) => `${where}: ${problem}`);
    }
  };
  const TOKEN = 'scrape-token-0123456789';

  it('serves /metrics on the main HTTP server unless turned off or given a port', () => {
    const main = { path: '/metrics', port: undefined, host: '127.0.0.1', token: undefined };
    expect(resolveMcpOptions({ name: 'a', version: '1' }).operations.metrics).toEqual(main);
    expect(resolveMcpOptions({ name: 'a', version: '1', metrics: true }).operations.metrics).toEqual(main);
    expect(resolveMcpOptions({ name: 'a', version: '1', metrics: false }).operations.metrics).toBeUndefined();
    expect(
      resolveMcpOptions({ name: 'a', version: '1', metrics: { port: 9464, host: '0.0.0.0', token: TOKEN } }).operations
        .metrics,
    ).toEqual({
      path: '/metrics',
      port: 9464,
      host: '0.0.0.0',
      token: TOKEN,
    });
  });

  it('turns metrics off on a host without HTTP unless they have a port of their own', () => {
    expect(resolveMcpOptions({ name: 'a', version: '1', http: false, stdio: true }).operations.metrics).toBeUndefined();
    expect(
      resolveMcpOptions({ name: 'a', version: '1', http: false, stdio: true, metrics: { port: 9464 } }).operations
        .metrics,
    ).toMatchObject({ port: 9464 });
  });

  it('reports each bad metrics option with a fix', () => {
    expect(problemsOf('on')).toEqual(['McpModule option "metrics": must be true, false or an object, got "on"']);
    expect(problemsOf({ path: 'metrics/', port: 70_000, token: 'short', colour: 1 })).toEqual([
      'McpModule option "metrics.colour": is not a known option',
      'McpModule option "metrics.path": "metrics/" is not an absolute URL path',
      'McpModule option "metrics.port": must be an integer from 1 to 65535, got 70000',
      'McpModule option "metrics.token": must be a string of at least 16 characters without spaces',
    ]);
    expect(problemsOf({ path: '/mcp' })).toEqual([
      'McpModule option "metrics.path": "/mcp" is the path of the MCP endpoint',
    ]);
    expect(problemsOf({ path: '/admin' })).toEqual([
      'McpModule option "metrics.path": "/admin" is the path of the admin dashboard',
    ]);
    // On a port of its own, the path may be anything.
    expect(problemsOf({ path: '/mcp', port: 9464 })).toEqual([]);
    expect(problemsOf({ host: '0.0.0.0' })).toEqual([
      'McpModule option "metrics.host": only applies to the listener of its own (metrics.port)',
    ]);
  });

  it('refuses a public metrics listener nobody could scrape without authentication, unless a token is set', () => {
    expect(problemsOf({ port: 9464, host: '0.0.0.0' })).toEqual([
      `McpModule option "metrics.host": authentication is off ('none'), so metrics answer loopback callers only, but the listener would be on 0.0.0.0`,
    ]);
    expect(problemsOf({ port: 9464, host: '0.0.0.0', token: TOKEN })).toEqual([]);
    expect(
      problemsOf(
        { port: 9464, host: '0.0.0.0' },
        { auth: { mode: 'apiKey', keys: [{ hash: `sha256:${'0'.repeat(64)}`, principal: 'ops' }] } },
      ),
    ).toEqual([]);
  });
});
