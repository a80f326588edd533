import type { ResolvedMcpOptions } from '../options/mcp-options.resolver';
import type { EndpointSurface } from './endpoints.messages';

/** Something of the application one endpoint takes for itself: a path on the HTTP server, a port, stdio, its name. */
export interface EndpointClaim {
  surface: EndpointSurface;
  /** Equal keys clash, whichever surface claims them. */
  key: string;
  /** How the claim reads in a message (`'/mcp'`, `port 9464`). */
  shown: string;
}

/**
 * What an endpoint takes of the application, from its options. Paths are compared exactly:
 * the MCP endpoint of one may not sit on the dashboard path of another.
 * @param health whether the module mounts the health controller (`health` extra)
 */
export function endpointClaims(
  { protocol, hosting, operations }: ResolvedMcpOptions,
  health: boolean,
): EndpointClaim[] {
  const claims: EndpointClaim[] = [
    { surface: 'name', key: `name:${protocol.server.name}`, shown: `the name "${protocol.server.name}"` },
  ];
  const onServer = (surface: EndpointSurface, path: string) =>
    claims.push({ surface, key: `http:${path}`, shown: `the path '${path}'` });
  if (hosting.http) {
    onServer('path', hosting.path);
    if (operations.admin) onServer('admin', operations.admin.path);
    if (operations.metrics && operations.metrics.port === undefined) onServer('metrics', operations.metrics.path);
  }
  const port = operations.metrics?.port;
  if (port !== undefined) claims.push({ surface: 'metricsPort', key: `port:${port}`, shown: `port ${port}` });
  // The controller is a Nest route, there whenever the module has it.
  if (health) onServer('health', '/health');
  if (hosting.stdio) claims.push({ surface: 'stdio', key: 'stdio', shown: 'stdin/stdout' });
  return claims;
}
