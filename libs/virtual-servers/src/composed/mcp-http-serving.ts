import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpPrincipal } from '#libs/core';

/**
 * The host's Streamable HTTP transport as a composed server serves through it (bound by
 * `McpModule` to its handler): the same checks, sessions, eras and admission as the MCP path,
 * with `caller` deciding who calls — given how the MCP path authenticates the request and how
 * it refuses one (recorded and counted as its own refusals).
 * @internal
 */
export interface McpHttpServing {
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    caller: (
      req: IncomingMessage,
      res: ServerResponse,
      authenticate: () => Promise<McpPrincipal | undefined>,
      refuse: (status: number, message: string, headers?: Record<string, string>) => void,
    ) => Promise<McpPrincipal | undefined>,
  ): void;
}

/** Token of the `McpHttpServing`. @internal */
export const MCP_HTTP_SERVING = Symbol('MCP:HTTP_SERVING');
