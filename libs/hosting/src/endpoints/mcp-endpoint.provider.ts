import type { Provider } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { MCP_RESOLVED_OPTIONS, type ResolvedMcpOptions } from '../options/mcp-options.resolver';
import { endpointClaims } from './endpoint-claims';
import { McpEndpoints, type McpEndpointRef } from './mcp-endpoints';

/** Token of this module's own `McpEndpointRef`. */
export const MCP_ENDPOINT = Symbol('MCP:ENDPOINT');

/**
 * Registers the module's endpoint with the app-wide `McpEndpoints` as the module is created:
 * every endpoint's claims are checked before any lifecycle hook mounts a path.
 * @param health whether the module mounts the health controller
 */
export function mcpEndpointProvider(health: boolean): Provider {
  return {
    provide: MCP_ENDPOINT,
    useFactory: (options: ResolvedMcpOptions, endpoints: McpEndpoints, moduleRef: ModuleRef): McpEndpointRef =>
      endpoints.register(
        {
          name: options.protocol.server.name,
          path: options.hosting.http ? options.hosting.path : undefined,
          authMode: options.security.auth.mode,
          moduleRef,
        },
        endpointClaims(options, health),
      ),
    inject: [MCP_RESOLVED_OPTIONS, McpEndpoints, ModuleRef],
  };
}
