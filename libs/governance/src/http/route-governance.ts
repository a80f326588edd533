import type { ServerResponse } from 'node:http';
import { HttpException, HttpStatus, type ExecutionContext } from '@nestjs/common';
import type { ModuleRef } from '@nestjs/core';
import { ToolRegistry } from '#libs/catalog';
import { isMcpRestRequest, type McpPrincipal } from '#libs/core';
import { AuditTrail, sensitiveFieldsOf, type GuardrailFinding } from '#libs/security';
import { GovernanceMessages } from '../messages/governance.messages';
import { MCP_GOVERNANCE } from '../governance.token';
import type { CallVerdict } from '../governance-verdicts';
import type { McpGovernance } from '../mcp-governance';
import type { PolicyRefusal } from '../policies/policy-set';
import {
  ANONYMOUS,
  GOVERNED_REQUEST,
  governanceOf,
  principalOnRequest,
  type GovernedRequest,
  type RouteRequest,
  type RouteResponse,
} from './governed-request';
import { RouteEntries } from './route-entries';

/** The audit record's `method` of a request to one of the app's routes (not an MCP method). */
export const ROUTE_METHOD = 'http/route';

/**
 * Governance on the app's own HTTP routes, for `McpGovernanceGuard` (the arguments) and
 * `McpGovernanceInterceptor` (the response): the same `McpGovernance` as the MCP admission, the
 * same entry when the REST bridge made a tool of the route, and one audit record per request it
 * had something to say about, written when the response is finished.
 */
export class RouteGovernance {
  private readonly entries: RouteEntries;

  constructor(
    private readonly governance: McpGovernance,
    tools: ToolRegistry,
    private readonly trail: AuditTrail | undefined,
  ) {
    this.entries = new RouteEntries(tools);
  }

  /**
   * The policies and guardrails on the request's arguments — its path parameters, query and body
   * as one object, the body's fields winning (a tool of the route takes them so) — decided now.
   * @throws HttpException 403 naming the policy that refused, 422 naming what a guardrail blocked
   */
  admit(context: ExecutionContext): void {
    const governed = this.accountOf(context);
    const verdict = this.governance.admitCall(governed.call);
    this.note(governed, verdict);
    if (verdict.kind === 'allowed') {
      if (verdict.args !== governed.call.args) writeBack(requestOf(context), governed.call.args, verdict.args);
      return;
    }
    // Refused by a guardrail (what it blocked), else by a policy (the last refusal: the enforcing one).
    if (verdict.audit.findings?.some((finding) => finding.action === 'block'))
      this.refuse(governed, HttpStatus.UNPROCESSABLE_ENTITY, (verdict as { message: string }).message, {
        findings: placesOf(verdict.audit.findings),
      });
    const refusal = verdict.audit.refused!.at(-1)!;
    this.refuse(governed, HttpStatus.FORBIDDEN, GovernanceMessages.refused(refusal.policy, refusal.reason), {
      policy: refusal.policy,
    });
  }

  /**
   * The result policies and guardrails on what the route answered, as on a tool's result whose
   * `structuredContent` is the body (`{ result: … }` for a body that is not an object): what they
   * let through (redacted), or a refusal when they withhold it.
   * @throws HttpException 403 naming the policy or what a guardrail found
   */
  screen(context: ExecutionContext, body: unknown): unknown {
    if (!isJson(body)) return body;
    const governed = this.accountOf(context);
    const wrapped = typeof body === 'object' && body !== null && !Array.isArray(body);
    const result = { structuredContent: wrapped ? body : { result: body } };
    const verdict = this.governance.screenResult(governed.call, result);
    if (verdict.refused) governed.refused = [...(governed.refused ?? []), ...verdict.refused];
    if (verdict.findings) governed.findings = [...(governed.findings ?? []), ...verdict.findings];
    if (verdict.kind === 'withheld') {
      const refusal = verdict.refused?.at(-1);
      this.refuse(governed, HttpStatus.FORBIDDEN, verdict.message, {
        ...(refusal && !refusal.dryRun ? { policy: refusal.policy } : { findings: placesOf(verdict.findings) }),
      });
    }
    const screened = (verdict.result as { structuredContent: unknown }).structuredContent;
    return wrapped ? screened : (screened as { result: unknown }).result;
  }

  /** The request's account, begun by whichever of the guard and the interceptor comes first. */
  private accountOf(context: ExecutionContext): GovernedRequest {
    const request = requestOf(context);
    const begun = (request as { [GOVERNED_REQUEST]?: GovernedRequest })[GOVERNED_REQUEST];
    if (begun) return begun;
    const controller = context.getClass();
    const handler = context.getHandler() as (...args: never[]) => unknown;
    const entry = this.entries.entryOf({
      controller,
      handler,
      method: (request.method ?? 'GET').toUpperCase(),
      path: matchedPath(request),
    });
    const principal: McpPrincipal = principalOnRequest(request) ?? ANONYMOUS;
    const governed: GovernedRequest = {
      call: { principal, client: undefined, transport: 'http', kind: 'tool', entry, args: argumentsOf(request) },
      route: entry.route,
      startedAt: Date.now(),
      recorded: undefined,
      refused: undefined,
      findings: undefined,
      allowed: undefined,
      refusal: undefined,
      written: false,
    };
    (request as { [GOVERNED_REQUEST]?: GovernedRequest })[GOVERNED_REQUEST] = governed;
    const response = context.switchToHttp().getResponse<RouteResponse>();
    const raw = ('raw' in response ? response.raw : response) as ServerResponse;
    raw.once('close', () => this.record(governed, request, raw.statusCode));
    return governed;
  }

  private note(governed: GovernedRequest, verdict: CallVerdict): void {
    const { refused, findings, allowed } = verdict.audit ?? {};
    governed.refused = refused as PolicyRefusal[] | undefined;
    governed.findings = findings as GuardrailFinding[] | undefined;
    governed.allowed = allowed;
    if (verdict.kind !== 'hidden' && verdict.recorded !== undefined) governed.recorded = verdict.recorded;
  }

  private refuse(governed: GovernedRequest, status: number, message: string, details: Record<string, unknown>): never {
    governed.refusal = { status, message };
    const error = status === HttpStatus.FORBIDDEN ? 'Forbidden' : 'Unprocessable Entity';
    throw new HttpException({ statusCode: status, error, message, ...details }, status);
  }

  /** One record per request governance had something to say about: a refusal, or a finding. */
  private record(governed: GovernedRequest, request: RouteRequest, status: number): void {
    if (governed.written || !this.trail) return;
    if (!governed.refusal && !governed.findings && !governed.refused) return;
    governed.written = true;
    const { call, refusal } = governed;
    const schema = (call.entry.definition as { inputSchema?: unknown }).inputSchema;
    this.trail.record({
      startedAt: governed.startedAt,
      principal: call.principal.id,
      transport: 'http',
      method: ROUTE_METHOD,
      target: call.entry.key,
      ...(governed.route !== undefined && { route: governed.route }),
      origin: 'route',
      arguments: governed.recorded ?? call.args,
      ...(schema !== undefined && { sensitive: sensitiveFieldsOf(schema) }),
      outcome: refusal ? 'denied' : 'ok',
      errorCode: refusal ? refusal.status : status >= 400 ? status : null,
      error: refusal?.message ?? null,
      latencyMs: Date.now() - governed.startedAt,
      remoteAddress: request.ip ?? request.socket?.remoteAddress ?? null,
      governance: governanceOf(governed),
    });
  }
}

const byGovernance = new WeakMap<McpGovernance, RouteGovernance>();

/**
 * The governance of the request `context` holds, or `undefined` when there is nothing to govern:
 * not an HTTP request, a request the REST bridge made for a tool call (the MCP admission governed
 * that call, as the tool: governing it again would decide, count and audit it twice), or a host
 * without the `governance` option. Looked up once per guard or interceptor (the `McpModule` that
 * holds governance need not be imported where the route is).
 */
export function routeGovernanceOf(
  context: ExecutionContext,
  moduleRef: ModuleRef,
  found: { governance?: McpGovernance | null },
): RouteGovernance | undefined {
  if (context.getType() !== 'http' || isMcpRestRequest(context.switchToHttp().getRequest())) return undefined;
  if (found.governance === undefined) found.governance = lookUp(moduleRef, MCP_GOVERNANCE) ?? null;
  const governance = found.governance;
  if (!governance) return undefined;
  let routes = byGovernance.get(governance);
  if (!routes) {
    routes = new RouteGovernance(governance, lookUp(moduleRef, ToolRegistry)!, lookUp(moduleRef, AuditTrail));
    byGovernance.set(governance, routes);
  }
  return routes;
}

function lookUp<T>(moduleRef: ModuleRef, token: symbol | (abstract new (...args: never[]) => T)): T | undefined {
  try {
    return (moduleRef.get(token as never, { strict: false }) as T | undefined) ?? undefined;
  } catch {
    return undefined;
  }
}

function requestOf(context: ExecutionContext): RouteRequest {
  return context.switchToHttp().getRequest<RouteRequest>();
}

/** The route's path as the platform matched it: Express's `req.route.path`, Fastify's `routeOptions.url`. */
function matchedPath(request: RouteRequest): string | undefined {
  const path = request.route?.path ?? request.routeOptions?.url;
  return typeof path === 'string' ? path : undefined;
}

function plainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);
}

/** The request's arguments as a tool of the route takes them: path parameters, query and body in one object. */
function argumentsOf(request: RouteRequest): Record<string, unknown> {
  const body = request.body;
  return {
    ...(plainObject(request.query) && request.query),
    ...(plainObject(request.params) && request.params),
    ...(plainObject(body) ? body : body !== undefined && body !== null && body !== '' ? { body } : {}),
  };
}

/** What a redacting guardrail changed, put back where it came from: the body, the path or the query. */
function writeBack(request: RouteRequest, sent: unknown, redacted: unknown): void {
  const given = sent as Record<string, unknown>;
  const changed = redacted as Record<string, unknown>;
  const body = plainObject(request.body) ? request.body : undefined;
  const params = plainObject(request.params) ? { ...request.params } : undefined;
  const query = plainObject(request.query) ? { ...request.query } : undefined;
  for (const key of Object.keys(changed)) {
    if (changed[key] === given[key]) continue;
    if (key === 'body' && !body) request.body = changed[key];
    else if (body && key in body) body[key] = changed[key];
    else if (params && key in params) params[key] = changed[key];
    else if (query && key in query) query[key] = changed[key];
  }
  // Express 5 parses `req.query` on each read (a getter): the redacted copy is set on the request itself.
  if (params)
    Object.defineProperty(request, 'params', { value: params, writable: true, configurable: true, enumerable: true });
  if (query)
    Object.defineProperty(request, 'query', { value: query, writable: true, configurable: true, enumerable: true });
}

/** Where a guardrail found what it refused: its kind and place, never the value. */
function placesOf(findings: readonly GuardrailFinding[] | undefined): { detector: string; path: string }[] {
  return (findings ?? [])
    .filter((finding) => finding.action === 'block')
    .map(({ detector, path }) => ({ detector, path }));
}

/** A body a route answers as JSON (not a file, a stream or nothing). */
function isJson(body: unknown): boolean {
  if (body === undefined || body === null) return false;
  if (typeof body !== 'object')
    return typeof body === 'string' || typeof body === 'number' || typeof body === 'boolean';
  return (
    Array.isArray(body) ||
    Object.getPrototypeOf(body) === Object.prototype ||
    Object.getPrototypeOf(body) === null ||
    isPlainInstance(body)
  );
}

/** A class instance a route returns as JSON (a DTO), not a Buffer, stream or file. */
function isPlainInstance(body: object): boolean {
  return (
    !Buffer.isBuffer(body) &&
    typeof (body as { pipe?: unknown }).pipe !== 'function' &&
    !(body instanceof Uint8Array) &&
    typeof (body as { getStream?: unknown }).getStream !== 'function'
  );
}
