import type { ExecutionContext } from '@nestjs/common';
import { MCP_CONTEXT_TYPE, type McpCallContext } from '#libs/core';

/**
 * Reads an MCP call out of a Nest `ExecutionContext` in guards, interceptors and filters.
 *
 * @example
 * ```ts
 * canActivate(context: ExecutionContext) {
 *   if (context.getType<'mcp'>() !== 'mcp') return true;
 *   const call = McpExecutionContext.create(context);
 *   return call.getCallContext().caller.roles.includes('agent');
 * }
 * ```
 */
export class McpExecutionContext {
  private constructor(private readonly context: ExecutionContext) {}

  /** @throws TypeError when the context is not an MCP call. */
  static create(context: ExecutionContext): McpExecutionContext {
    if (context.getType<string>() !== MCP_CONTEXT_TYPE) {
      throw new TypeError(`McpExecutionContext.create() needs an 'mcp' context, got '${context.getType()}'`);
    }
    return new McpExecutionContext(context);
  }

  /** The validated arguments of the call. */
  getArgs<T = Record<string, unknown>>(): T {
    return this.context.getArgByIndex<T>(0);
  }

  getCallContext(): McpCallContext {
    return this.context.getArgByIndex<McpCallContext>(1);
  }
}
