import { assignMetadata, type PipeTransform, type Type } from '@nestjs/common';
import { MCP_PARAM_ARGS_METADATA } from '../mcp.constants';
import { McpParamType } from '../interfaces/mcp-param-type.enum';

function mcpParam(
  type: McpParamType,
  data: string | undefined,
  pipes: (Type<PipeTransform> | PipeTransform)[],
): ParameterDecorator {
  return (target, key, index) => {
    if (key === undefined) return;
    const existing = Reflect.getMetadata(MCP_PARAM_ARGS_METADATA, target.constructor, key) ?? {};
    Reflect.defineMetadata(
      MCP_PARAM_ARGS_METADATA,
      assignMetadata(existing, type, index, data, ...pipes),
      target.constructor,
      key,
    );
  };
}

/**
 * Binds the tool's validated arguments. Type the parameter with a class-validator DTO and the
 * input schema is generated from it; or give `input` in `@McpTool()` (zod or JSON Schema).
 * With a property name, binds only that argument.
 *
 * @example
 * ```ts
 * @McpTool({ description: 'Finds a ticket' })
 * getTicket(@McpArgs() args: GetTicketDto) { ... }
 * ```
 */
export function McpArgs(property?: string, ...pipes: (Type<PipeTransform> | PipeTransform)[]): ParameterDecorator {
  return mcpParam(McpParamType.ARGS, property, pipes);
}

/**
 * Binds the call context: request and session ids, protocol version, caller, headers,
 * an `AbortSignal`, a progress reporter and a logger that reaches the client.
 *
 * @example
 * ```ts
 * @McpTool({ description: 'Exports all tickets' })
 * async export(@McpContext() ctx: McpCallContext) {
 *   ctx.reportProgress(1, 10);
 *   if (ctx.signal.aborted) return 'cancelled';
 * }
 * ```
 */
export function McpContext(): ParameterDecorator {
  return mcpParam(McpParamType.CONTEXT, undefined, []);
}

/**
 * Binds the authenticated principal of the call (`{ id, scopes, roles, claims }`), on every
 * transport (on stdio, the configured local operator).
 *
 * @example
 * ```ts
 * @McpTool({ description: 'Tickets assigned to me' })
 * mine(@McpCaller() caller: McpCaller) {
 *   return this.tickets.search({ assignee: caller.id });
 * }
 * ```
 */
export function McpCaller(): ParameterDecorator {
  return mcpParam(McpParamType.CALLER, undefined, []);
}
