import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { McpPrincipal } from '#libs/core';
import type { AuditGovernance, GuardrailFinding } from '#libs/security';
import type { GovernedCall } from '../governance-verdicts';
import type { PolicyRefusal } from '../policies/policy-set';

/** What the guard and the interceptor read and write of a request, whichever platform made it. */
export interface RouteRequest {
  headers: IncomingHttpHeaders;
  method?: string;
  /** Express: the matched route (`req.route.path`). */
  route?: { path?: unknown };
  /** Fastify: the matched route (`request.routeOptions.url`). */
  routeOptions?: { url?: unknown };
  params?: unknown;
  query?: unknown;
  body?: unknown;
  /** The caller, as the authentication the route uses put it there. */
  user?: unknown;
  ip?: string;
  socket?: { remoteAddress?: string };
}

/** Express's response is Node's; Fastify's reply holds it as `raw`. */
export type RouteResponse = ServerResponse | { raw: ServerResponse };

/**
 * Governance's account of one HTTP request to a governed route, kept on the request from the
 * guard's decision to the end of its response, when it becomes one audit record (if anything was
 * decided worth one: a refusal, or a finding of a guardrail).
 */
export interface GovernedRequest {
  readonly call: GovernedCall;
  readonly route: string | undefined;
  readonly startedAt: number;
  /** The arguments as the audit record keeps them (every finding replaced), when a guardrail found something. */
  recorded: unknown;
  refused: PolicyRefusal[] | undefined;
  findings: GuardrailFinding[] | undefined;
  allowed: readonly string[] | undefined;
  /** What the caller was told, when governance refused the request or withheld its response. */
  refusal: { status: number; message: string } | undefined;
  /** The record is written (once). */
  written: boolean;
}

/** Where the account is kept on the request (a symbol: no client can set it). */
export const GOVERNED_REQUEST: unique symbol = Symbol('nest-mcp-host/governed-request');

/** The caller on `request.user`, when it is a principal as the host makes them. */
export function principalOnRequest(request: RouteRequest): McpPrincipal | undefined {
  const user = request.user as Partial<McpPrincipal> | undefined;
  if (typeof user !== 'object' || user === null) return undefined;
  const { id, scopes, roles } = user;
  if (typeof id !== 'string' || !Array.isArray(scopes) || !Array.isArray(roles)) return undefined;
  return { id, scopes, roles, claims: (user.claims as Record<string, unknown> | undefined) ?? {} };
}

/** Who calls a route that no authentication put a principal on: no scopes, roles or claims. */
export const ANONYMOUS: McpPrincipal = Object.freeze({ id: 'anonymous', scopes: [], roles: [], claims: {} });

/** The audit record's governance of the request, as an MCP call's says it. */
export function governanceOf(governed: GovernedRequest): AuditGovernance {
  const { allowed, refused, findings } = governed;
  return {
    ...(allowed && allowed.length > 0 && { allowed }),
    ...(refused && { refused }),
    ...(findings && { findings }),
  };
}
