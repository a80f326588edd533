import { ForbiddenException, Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { MCP_CONTEXT_TYPE, MCP_TOOL_METADATA, type McpToolOptions } from 'nest-mcp-host';
import { DESK_API_METADATA } from './rest/desk-api.decorator';
import { SUPPORT_OPTIONS, type SupportOptions } from './support.options';

/**
 * In read-only mode, refuses every tool that does not declare `readOnlyHint`, and every route of
 * the desk's REST API but GET (also when an MCP call of a REST-derived tool runs the route). Registered as a global guard: it sees every call on every
 * transport, and lets the other HTTP routes (health, admin) through.
 */
@Injectable()
export class ReadOnlyModeGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    @Inject(SUPPORT_OPTIONS) private readonly options: SupportOptions,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (!this.options.readOnly) return true;
    if (context.getType() === 'http') return this.allowsRoute(context);
    if (context.getType<string>() !== MCP_CONTEXT_TYPE) return true;
    const tool = this.reflector.get<McpToolOptions | undefined>(MCP_TOOL_METADATA, context.getHandler());
    // A tool made from a REST route (no @McpTool) runs the route, where this guard decides as for HTTP.
    if (!tool || tool.annotations?.readOnlyHint) return true;
    throw new ForbiddenException(
      'The support desk is in read-only mode: only read-only tools can be called right now.',
    );
  }

  private allowsRoute(context: ExecutionContext): boolean {
    if (!this.reflector.get<boolean | undefined>(DESK_API_METADATA, context.getClass())) return true;
    if (context.switchToHttp().getRequest<{ method: string }>().method === 'GET') return true;
    throw new ForbiddenException(
      'The support desk is in read-only mode: only GET routes of its REST API can be used right now.',
    );
  }
}
