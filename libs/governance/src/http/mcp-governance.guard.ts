import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import type { McpGovernance } from '../mcp-governance';
import { routeGovernanceOf } from './route-governance';

/**
 * Governance on the app's own HTTP routes, as on its MCP tools: the host's policies (the
 * `governance` option, replacements through the admin API, `@McpPolicy` on the controller or the
 * route's method) and guardrails decide each request before the route runs — who may use the
 * route, then the guardrails on its arguments, then the policies on them. The arguments are the
 * route's path parameters, query and body as one object (the body's fields winning), as the tool
 * the REST bridge makes of the route takes them; a route the bridge made a tool of is governed as
 * that very tool (its name, its policies), any other as `Controller.method` (`origin: 'rest'`).
 *
 * - The caller is the principal on `request.user`, as the authentication the route uses put it
 *   there: put this guard after the guard that authenticates. A request with none is governed as
 *   a caller with no scopes, roles or claims.
 * - Refused: `403 { statusCode, error, message: 'Not allowed by policy "<id>": <reason>', policy }`;
 *   blocked by a guardrail: `422 { …, message: 'Refused by guardrail: …', findings: [{ detector, path }] }`
 *   (never the value). A redacting guardrail's copy is what the route gets.
 * - Audited as an MCP call's refusal is, once per request (when its response is finished):
 *   `method: 'http/route'`, `origin: 'route'`, the route, the policy or the findings.
 * - A request the REST bridge made for a tool call passes: the MCP admission decided that call.
 * - Nest runs guards before pipes: the policies see the arguments as sent, not as the route's
 *   validation makes them (over MCP, a tool's arguments are checked first).
 *
 * With `McpGovernanceInterceptor`, the response is screened as well (result policies, and the
 * guardrails on results: redacted for callers without clearance, as over MCP). Without the
 * `governance` option, both let everything through.
 *
 * @example
 * ```ts
 * @Controller('api/tickets')
 * @UseGuards(ApiKeyGuard, McpGovernanceGuard) // authenticate first: it sets request.user
 * @UseInterceptors(McpGovernanceInterceptor)
 * export class TicketsController {
 *   @McpPolicy({
 *     id: 'urgent-needs-lead',
 *     condition: "!has(args.priority) || args.priority != 'urgent' || 'lead' in principal.roles",
 *     reason: 'only a team lead may make a ticket urgent',
 *   })
 *   @Patch(':ticketId')
 *   update(@Param('ticketId') id: string, @Body() changes: UpdateTicketBody) { … }
 * }
 * ```
 * @throws HttpException 403 (a policy) or 422 (a guardrail), with a body that says which
 */
@Injectable()
export class McpGovernanceGuard implements CanActivate {
  private readonly found: { governance?: McpGovernance | null } = {};

  constructor(private readonly moduleRef: ModuleRef) {}

  canActivate(context: ExecutionContext): boolean {
    routeGovernanceOf(context, this.moduleRef, this.found)?.admit(context);
    return true;
  }
}
