import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { map, type Observable } from 'rxjs';
import type { McpGovernance } from '../mcp-governance';
import { routeGovernanceOf } from './route-governance';

/**
 * Governance on what the app's own HTTP routes answer, as on its MCP tools' results: the result
 * policies (`stage: 'result'`) and the guardrails on results see the response body as a tool's
 * `structuredContent` (`result.structuredContent.customerId`; a body that is not an object as
 * `{ result: … }`), redact it (customers' e-mail addresses for a caller without clearance, as
 * over MCP), or withhold it: `403 { statusCode, error, message, policy }` (or `findings`, the
 * kind and place of what a guardrail found, never the value). Its findings go to the request's one
 * audit record (see `McpGovernanceGuard`, which it completes). A request the REST bridge made
 * for a tool call passes: the MCP call's result is screened where it leaves.
 *
 * @example
 * ```ts
 * @Controller('api/customers')
 * @UseGuards(ApiKeyGuard, McpGovernanceGuard)
 * @UseInterceptors(McpGovernanceInterceptor)
 * export class CustomersController { … }
 * ```
 */
@Injectable()
export class McpGovernanceInterceptor implements NestInterceptor {
  private readonly found: { governance?: McpGovernance | null } = {};

  constructor(private readonly moduleRef: ModuleRef) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const routes = routeGovernanceOf(context, this.moduleRef, this.found);
    if (!routes) return next.handle();
    return next.handle().pipe(map((body: unknown) => routes.screen(context, body)));
  }
}
