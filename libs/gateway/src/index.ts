// The gateway: upstream MCP servers joined into the host's catalog. Every export here is public
// API of the package (re-exported by name from libs/index.ts) or marked @internal.
export { McpGateway } from './mcp-gateway';
export {
  GATEWAY_OPTION_KEYS,
  InjectGatewayOptions,
  MCP_GATEWAY_OPTIONS,
  resolveGatewayOptions,
  resolveUpstreams,
  type GatewayOptions,
  type McpGatewayOptions,
} from './options/gateway.options';
export type {
  McpHttpUpstreamTransport,
  McpStdioUpstreamTransport,
  McpUpstreamFilter,
  McpUpstreamLimits,
  McpUpstreamOAuth,
  McpUpstreamOptions,
  UpstreamConfirmation,
  UpstreamLimits,
  UpstreamOptions,
} from './options/upstream.options';
export type { UpstreamStatus } from './upstream/upstream-connection';
export type { UpstreamState } from './upstream/upstream-link';
export type { CircuitState } from './resilience/circuit-breaker';
export { UPSTREAM_META_KEY } from './catalog/upstream-catalog';
export { GATEWAY_PROVIDERS } from './gateway.providers';
