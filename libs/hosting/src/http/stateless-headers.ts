import type { IncomingHttpHeaders } from 'node:http';
import { Injectable } from '@nestjs/common';
import type { JsonRpcError, McpPrincipal } from '#libs/core';
import { ToolRegistry } from '#libs/catalog';
import { AccessControl } from '#libs/protocol';
import { checkParamHeaders } from './headers/param-headers';
import { checkStandardHeaders } from './headers/standard-headers';
import { checkVersionHeader } from './headers/version-header';

export { VERSION_HEADER } from './headers/version-header';

/**
 * Checks the headers of a 2026-07-28 request against its body (the spec's "Server Validation"):
 * intermediaries route on the headers and the host runs the body, so the two must agree.
 * `MCP-Protocol-Version`, then `Mcp-Method` and `Mcp-Name`, then the `Mcp-Param-*` headers of the
 * tool a `tools/call` names — only when the caller may see that tool, so that a header refusal
 * never reveals a tool the caller cannot use (it gets "unknown tool" instead).
 */
@Injectable()
export class StatelessHeaders {
  constructor(
    private readonly tools: ToolRegistry,
    private readonly access: AccessControl,
  ) {}

  /** The error to answer (HTTP 400: `-32020`, or `-32022` for a revision not served), or `undefined`. */
  check(
    headers: IncomingHttpHeaders,
    method: string,
    params: Record<string, unknown> | undefined,
    principal: McpPrincipal,
  ): JsonRpcError | undefined {
    return (
      checkVersionHeader(headers, params) ??
      checkStandardHeaders(headers, method, params) ??
      this.checkToolParams(headers, method, params, principal)
    );
  }

  private checkToolParams(
    headers: IncomingHttpHeaders,
    method: string,
    params: Record<string, unknown> | undefined,
    principal: McpPrincipal,
  ): JsonRpcError | undefined {
    if (method !== 'tools/call' || typeof params?.name !== 'string') return undefined;
    // Most tools mirror no parameter: the caller's access is looked at only for those that do.
    const tool = this.tools.get(params.name);
    if (!tool?.headerParams || !this.access.visible(principal, tool)) return undefined;
    return checkParamHeaders(headers, tool.headerParams, params.arguments);
  }
}
