import type { McpGatewayOptions, McpUpstreamOptions } from 'nest-mcp-host';
import { readConfigList } from './config-file';
import type { HostEnvironment } from './host.config';

/**
 * The upstream MCP servers the desk federates, from GATEWAY_UPSTREAMS_FILE (see
 * docs/deployment.md): `{ "upstreams": [ … McpUpstreamOptions … ] }`. Secrets stay out of the
 * file: a string may hold `${NAME}`, replaced by the environment variable NAME, which must be set.
 * McpModule validates the upstreams themselves.
 * @throws Error naming the file and what is wrong with it
 */
export function gatewayOptions(env: HostEnvironment, variables: NodeJS.ProcessEnv = process.env): McpGatewayOptions {
  const file = env.GATEWAY_UPSTREAMS_FILE;
  if (!file) return {};
  const upstreams = readConfigList('GATEWAY_UPSTREAMS_FILE', file, 'upstreams', 'docs/gateway.md', variables);
  return { upstreams: upstreams as McpUpstreamOptions[] };
}
