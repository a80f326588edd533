/**
 * The property that marks a request the REST bridge made for an MCP tool call (`req[MCP_REST_REQUEST]`),
 * so that the application (a guard, a logger, a rate limiter) and the bridge can tell it from a
 * network request. Its value is what the bridge put there (`true` unless it passed a context).
 *
 * @example
 * ```ts
 * @Injectable()
 * export class NoMcpGuard implements CanActivate {
 *   canActivate(context: ExecutionContext): boolean {
 *     return !isMcpRestRequest(context.switchToHttp().getRequest());
 *   }
 * }
 * ```
 */
export const MCP_REST_REQUEST: unique symbol = Symbol.for('nest-mcp-host/rest-request');

/** True when `request` was made by the REST bridge for an MCP tool call. */
export function isMcpRestRequest(request: unknown): boolean {
  return (
    typeof request === 'object' &&
    request !== null &&
    (request as Record<symbol, unknown>)[MCP_REST_REQUEST] !== undefined
  );
}
