import { ForbiddenException, Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { MCP_CONTEXT_TYPE, MCP_TOOL_METADATA, type McpToolOptions } from 'nest-mcp-host';
import { SUPPORT_OPTIONS, type SupportOptions } from './support.options';

/**
 * In read-only mode, refuses every tool that does not declare `readOnlyHint`. Registered as a
 * global guard: it sees every call on every transport, and lets HTTP routes through.
 */
@Injectable()
export class ReadOnlyModeGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(SUPPORT_OPTIONS) private readonly options: SupportOptions,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (!this.options.readOnly || context.getType<string>() !== MCP_CONTEXT_TYPE) return true;
    const tool = this.reflector.get<McpToolOptions | undefined>(MCP_TOOL_METADATA, context.getHandler());
    if (tool?.annotations?.readOnlyHint) return true;
    throw new ForbiddenException(
      'The support desk is in read-only mode: only read-only tools can be called right now.',
    );
  }
}
