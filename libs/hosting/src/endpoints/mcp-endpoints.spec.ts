import type { ModuleRef } from '@nestjs/core';
import { McpStartupError } from '#libs/core';
import { resolveMcpOptions } from '../options/mcp-options.resolver';
import type { McpModuleOptions } from '../interfaces/mcp-module-options.interface';
import { endpointClaims } from './endpoint-claims';
import { McpEndpoints } from './mcp-endpoints';

const claimsOf = (options: Partial<McpModuleOptions>, health = true) =>
  endpointClaims(resolveMcpOptions({ name: 'a', version: '1', ...options }), health).map((claim) => claim.key);

describe('endpointClaims', () => {
  it('takes the MCP path, the dashboard, metrics and the probes on the HTTP server by default', () => {
    expect(claimsOf({})).toEqual(['name:a', 'http:/mcp', 'http:/admin', 'http:/metrics', 'http:/health']);
  });

  it('takes nothing on the HTTP server without http, and a port for metrics on their own listener', () => {
    expect(claimsOf({ http: false, stdio: true, metrics: { port: 9464 } }, false)).toEqual([
      'name:a',
      'port:9464',
      'stdio',
    ]);
    expect(claimsOf({ admin: false, metrics: false }, false)).toEqual(['name:a', 'http:/mcp']);
  });
});

describe('McpEndpoints', () => {
  const moduleRef = { get: jest.fn(() => 'the catalog') } as unknown as ModuleRef;
  const register = (endpoints: McpEndpoints, options: Partial<McpModuleOptions>, health = false) => {
    const claims = endpointClaims(
      resolveMcpOptions({ version: '1', admin: false, metrics: false, ...options } as McpModuleOptions),
      health,
    );
    return endpoints.register({ name: options.name!, path: options.path, authMode: 'none', moduleRef }, claims);
  };

  it('keeps each endpoint by name and resolves its services from its own module only', () => {
    const endpoints = new McpEndpoints();
    register(endpoints, { name: 'support', path: '/mcp/support' });
    const billing = register(endpoints, { name: 'billing', path: '/mcp/billing' });
    expect(endpoints.all().map((endpoint) => endpoint.name)).toEqual(['support', 'billing']);
    expect(endpoints.get('billing')).toBe(billing);
    expect(billing.get('token')).toBe('the catalog');
    expect(moduleRef.get).toHaveBeenCalledWith('token', { strict: true });
  });

  it('refuses a clashing endpoint without registering any of its claims', () => {
    const endpoints = new McpEndpoints();
    register(endpoints, { name: 'support', path: '/mcp' }, true);
    expect(() => register(endpoints, { name: 'billing', path: '/mcp' }, true)).toThrow(McpStartupError);
    expect(endpoints.all()).toHaveLength(1);
    // Fixed, it starts.
    expect(register(endpoints, { name: 'billing', path: '/mcp/billing' }).path).toBe('/mcp/billing');
  });
});
