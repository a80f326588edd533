import type { HostRoute } from '#libs/virtual-servers';
import type { ResolvedMcpOptions } from './mcp-options.resolver';

/**
 * The host's own routes on its HTTP server, from its options: what a composed virtual server's
 * path may be none of, nor under (it would answer in their place, in front of the framework).
 */
export function hostRoutes({ operations, authorizationServer, downstream }: ResolvedMcpOptions): HostRoute[] {
  const routes: HostRoute[] = [{ path: '/health', what: 'the health probes' }];
  if (operations.admin) routes.push({ path: operations.admin.path, what: 'the admin dashboard and API' });
  if (operations.metrics && operations.metrics.port === undefined)
    routes.push({ path: operations.metrics.path, what: 'the metrics' });
  for (const url of Object.values(authorizationServer?.endpoints ?? {}))
    routes.push({ path: new URL(url).pathname, what: 'the authorization server' });
  if (downstream.connections) routes.push({ path: downstream.connections.path, what: 'the connect pages' });
  return routes;
}
