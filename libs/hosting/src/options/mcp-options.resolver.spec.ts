import { McpStartupError } from '#libs/core';
import { resolveMcpOptions } from './mcp-options.resolver';

describe('resolveMcpOptions', () => {
  it('fills every default', () => {
    const options = resolveMcpOptions({ name: 'desk', version: '1.0.0' });
    expect(options).toMatchObject({
      path: '/mcp',
      mode: 'stateful',
      sessionIdleTtlMs: 1_800_000,
      maxSessions: 10_000,
      bodyLimit: 1_048_576,
      http: true,
      stdio: false,
      routeThroughExpress: false,
      pageSize: 100,
      shutdownTimeoutMs: 10_000,
      confirmDestructive: false,
      taskTtlMs: 3_600_000,
      toolTimeoutMs: 30_000,
      limits: { maxDepth: 32, maxStringLength: 100_000, maxArrayLength: 10_000, maxArguments: 100 },
      redact: { patterns: [], builtIn: true },
      authFailureLimit: { limit: 20, windowMs: 60_000 },
      cors: undefined,
      allowedOrigins: undefined,
    });
    expect([...options.allowedHosts!]).toEqual(['localhost', '127.0.0.1', '[::1]']);
  });

  it('parses sizes and host wildcards', () => {
    const options = resolveMcpOptions({ name: 'a', version: '1', bodyLimit: '512kb', allowedHosts: ['*'], allowedOrigins: ['https://App.example.com'] });
    expect(options.bodyLimit).toBe(524_288);
    expect(options.allowedHosts).toBeUndefined();
    expect([...options.allowedOrigins!]).toEqual(['https://app.example.com']);
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
      'McpModule option "path"',
      'McpModule option "mode"',
      'McpModule option "maxSessions"',
      'McpModule option "allowedOrigins"',
      'McpModule option "bodyLimit"',
      'McpModule option "stdio"',
    ]);
    expect((error as Error).message).toContain("fix: use 'stateful' or 'stateless'");
    expect((error as Error).message).toContain("fix: give bytes (1048576) or a string like '512kb' or '4mb'");
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
    expect(resolveMcpOptions({ name: 'a', version: '1' }).admin).toEqual({ path: '/admin', statsWindowMs: 300_000 });
    expect(resolveMcpOptions({ name: 'a', version: '1', admin: true }).admin).toEqual({ path: '/admin', statsWindowMs: 300_000 });
    expect(resolveMcpOptions({ name: 'a', version: '1', admin: false }).admin).toBeUndefined();
    expect(resolveMcpOptions({ name: 'a', version: '1', admin: { path: '/ops/mcp', statsWindowMinutes: 15 } }).admin).toEqual({ path: '/ops/mcp', statsWindowMs: 900_000 });
  });

  it('reports each bad admin option with a fix', () => {
    expect(problemsOf('yes')).toEqual(['McpModule option "admin": must be false or an object, got "yes"']);
    expect(problemsOf({ path: 'admin/', statsWindowMinutes: 0, colour: 1 })).toEqual([
      'McpModule option "admin.colour": is not a known option',
      'McpModule option "admin.path": "admin/" is not an absolute URL path',
      'McpModule option "admin.statsWindowMinutes": must be an integer from 1 to 1440, got 0',
    ]);
    expect(problemsOf({ path: '/' })).toEqual(['McpModule option "admin.path": "/" is not an absolute URL path']);
    expect(problemsOf({ path: '/mcp' })).toEqual(['McpModule option "admin.path": "/mcp" is the path of the MCP endpoint']);
    expect(problemsOf({ path: '/x' }, { path: '/x' })).toEqual(['McpModule option "admin.path": "/x" is the path of the MCP endpoint']);
  });
});
