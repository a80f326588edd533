import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { InjectProtocolOptions, type ProtocolOptions } from '../options/protocol.options';
import { checkRequestLimits, RequestLimitError } from '../wire/request-limits';
import { AccessDeniedError } from '../admission/access-control';
import type { RequestNote } from '../events/request-note';
import { requestNoteOf } from '../requests/request-note-of';
import { outcomeOfCode, RequestEvents } from '../events/request-events';
import { CallAdmission } from '../admission/call-admission';
import { McpTracing } from './mcp-tracing';
import { StatelessCalls } from '../calls/stateless-calls';
import { JsonRpcError, JsonRpcErrorCode } from '#libs/core';
import { HostState } from '../lifecycle/host-state';
import { errorResponse, resultResponse } from '../wire/json-rpc';
import { MCP_METHOD_GROUPS, type McpMethods, type MethodHandler } from '../methods/method-handler';
import { erasOf, guardedIn, MCP_REQUEST_METHODS, traitsOf, type McpEra } from '../wire/mcp-method.table';
import { InjectSessionRelay, type SessionRelay } from '../sessions/session-relay';
import { statelessResult } from '../eras/stateless-result';
import type { McpRequest } from '../requests/mcp-request';
import type { McpAnswer, ReplyChannel } from '../requests/reply-channel';
import { RequestLife } from './request-life';

const NOT_INITIALIZED =
  'Invalid Request: the session is not initialized; send initialize first (only ping may come before it)';

/** What a notification or a client's response is answered: nothing. */
const NOTHING: McpAnswer = Object.freeze({ body: undefined, status: 202, outcome: 'ok' });

/** A response body and the HTTP status it goes with (2026-07-28 prescribes some for errors). */
interface Response {
  body: string;
  status: number;
}

/**
 * Answers JSON-RPC messages for any transport: a request in (`McpRequest`), the answer out through
 * its `ReplyChannel`, and returned. It holds no connection state: everything about the client comes
 * with the request, so one dispatcher serves sessions, stateless requests and stdio alike. Each
 * request's life (`RequestLife`) ends with its answer delivered and its record taken.
 */
@Injectable()
export class McpDispatcher {
  private readonly logger = new Logger('McpDispatcher');
  private readonly handlers: ReadonlyMap<string, EraHandlers>;

  constructor(
    @InjectProtocolOptions() private readonly options: ProtocolOptions,
    @Inject(MCP_METHOD_GROUPS) groups: readonly McpMethods[],
    private readonly events: RequestEvents,
    private readonly admission: CallAdmission,
    private readonly tracing: McpTracing,
    private readonly stateless: StatelessCalls,
    private readonly state: HostState,
    @Optional() @InjectSessionRelay() private readonly relay?: SessionRelay,
  ) {
    this.handlers = routesOf(groups);
  }

  /**
   * Serves one message and delivers its answer through `reply`: a request's response (none when
   * its client cancelled it), nothing for a notification or a client's response. Resolves to what
   * was answered, once delivered and recorded.
   */
  async dispatch(request: McpRequest, reply: ReplyChannel): Promise<McpAnswer> {
    if (request.kind === 'notification') {
      this.onNotification(request);
      await reply.answer(NOTHING);
      return NOTHING;
    }
    if (request.kind === 'response') {
      this.onResponse(request);
      await reply.answer(NOTHING);
      return NOTHING;
    }
    const note = requestNoteOf(request);
    return new RequestLife(this.state, this.events, note).complete(reply, async () => {
      // A span per request when an OpenTelemetry SDK is registered; the note gets its trace id.
      const response = await this.tracing.run(note, request, () =>
        request.problem
          ? Promise.resolve(this.refuse(request, request.problem, note))
          : this.answer(request, reply, note),
      );
      return { body: note.withdrawn ? undefined : response.body, status: response.status, outcome: note.outcome };
    });
  }

  private async answer(request: McpRequest, reply: ReplyChannel, note: RequestNote): Promise<Response> {
    const { session, id } = request;
    // A session is used only once `initialize` opened it (stateful HTTP opens it with the session;
    // stdio has one from the start). Only `ping` may come first, as the spec allows.
    if (session.id !== undefined && !session.opened && request.method !== 'initialize' && request.method !== 'ping') {
      note.fail('invalid', JsonRpcErrorCode.INVALID_REQUEST, NOT_INITIALIZED);
      return { body: errorResponse(id, JsonRpcErrorCode.INVALID_REQUEST, NOT_INITIALIZED), status: 200 };
    }
    const { era } = request;
    const route = this.handlers.get(request.method!);
    const handler = route?.[era];
    if (!handler) {
      // A method of the table has a handler in each era that has it (checked at start-up).
      const notFound = new JsonRpcError(
        JsonRpcErrorCode.METHOD_NOT_FOUND,
        route
          ? `Method not found: ${request.method} is not part of protocol ${session.protocolVersion}`
          : `Method not found: ${request.method}`,
        undefined,
        era === 'stateless' ? 404 : undefined,
      );
      return this.refuse(request, notFound, note);
    }
    try {
      checkRequestLimits(request.params, this.options.limits);
      // Calls of catalog entries pass the audit gate in their admission, once the entry is known
      // to exist for this caller; guarded methods that name no entry (task results) pass it here.
      const traits = note.traits!;
      if (!traits.names && guardedIn(traits, era)) this.admission.checkAuditGate(note);
      const result = await handler(request, reply, note);
      return { body: resultResponse(id!, era === 'stateless' ? statelessResult(result, traits) : result), status: 200 };
    } catch (error) {
      if (error instanceof JsonRpcError) return this.refuse(request, error, note);
      this.logger.error(`${request.method} failed`, (error as Error)?.stack ?? String(error));
      note.fail('error', JsonRpcErrorCode.INTERNAL_ERROR, 'Internal error');
      return { body: errorResponse(id, JsonRpcErrorCode.INTERNAL_ERROR, 'Internal error'), status: 200 };
    }
  }

  /** Answers a protocol error: recorded on the note, logged below production levels, with its HTTP status (2026-07-28). */
  private refuse(request: McpRequest, error: JsonRpcError, note: RequestNote): Response {
    const outcome =
      error instanceof AccessDeniedError
        ? 'denied'
        : error instanceof RequestLimitError
          ? 'limited'
          : outcomeOfCode(error.code);
    const stateless = request.era === 'stateless';
    // 2026-07-28 made "resource not found" an invalid-params error; tools throw one error for both eras.
    const code =
      error.code === JsonRpcErrorCode.RESOURCE_NOT_FOUND && stateless ? JsonRpcErrorCode.INVALID_PARAMS : error.code;
    note.fail(outcome, code, error.message);
    // The client's mistake, not the host's: one line, below the levels production logs keep.
    this.logger.debug(`${note.method} refused (${code}): ${error.message}`);
    const status = stateless && error.httpStatus !== undefined ? error.httpStatus : 200;
    return { body: errorResponse(request.id, code, error.message, error.data), status };
  }

  /** A client's answer to a request the host sent it (elicitation, sampling, roots). */
  private onResponse({ message, session }: McpRequest): void {
    const error = message.error as { message?: unknown; code?: unknown } | undefined;
    if (session.clientRequests.settle(message.id, message.result, error)) return;
    // Another replica of the session may be waiting for it.
    if (!this.relay?.forwardResponse(session, message.id, message.result, error))
      this.logger.warn(`Ignored a response to unknown request ${JSON.stringify(message.id)}`);
  }

  private onNotification({ method, params, session, principal }: McpRequest): void {
    switch (method) {
      case 'notifications/initialized':
        session.initialized = true;
        break;
      case 'notifications/cancelled': {
        const requestId = params.requestId;
        if (typeof requestId === 'string' || typeof requestId === 'number') {
          // Stateless requests (including 2026-07-28 ones on stdio) run on sessions of their own.
          const call =
            (session.id === undefined ? undefined : session.inFlight.get(requestId)) ??
            this.stateless.find(principal.id, requestId);
          const given = params.reason;
          const reason = typeof given === 'string' && given ? given.slice(0, 200) : 'no reason given';
          if (call) call.cancelByClient(reason);
          // The call may run on another replica of the session.
          else this.relay?.forwardCancel(session, requestId, reason);
        }
        break;
      }
      default:
      // Unknown notifications are ignored, as JSON-RPC requires.
    }
  }
}

/** A method's handler in each era that has it. */
type EraHandlers = Partial<Record<McpEra, MethodHandler>>;

/**
 * The route of every method of the table in every era that has it, from the groups that answer them.
 * @throws Error when a method has no handler in an era, two, or a handler has no row in the table (or answers an era the row lacks)
 */
function routesOf(groups: readonly McpMethods[]): ReadonlyMap<string, EraHandlers> {
  const routes = new Map<string, EraHandlers>();
  const problems: string[] = [];
  for (const group of groups) {
    for (const [method, handler] of Object.entries(group.methods)) {
      const traits = traitsOf(method);
      if (!traits) {
        problems.push(`${group.constructor.name} answers "${method}", which the method table does not list`);
        continue;
      }
      if (!handler) continue;
      const eras = erasOf(traits);
      if (group.era && !eras.includes(group.era)) {
        problems.push(
          `${group.constructor.name} answers "${method}" in the ${group.era} era, which the method table does not give it`,
        );
        continue;
      }
      const route = routes.get(method) ?? {};
      routes.set(method, route);
      for (const era of group.era ? [group.era] : eras) {
        if (route[era])
          problems.push(`"${method}" is answered by two method groups${eras.length > 1 ? ` in the ${era} era` : ''}`);
        else route[era] = handler;
      }
    }
  }
  for (const method of MCP_REQUEST_METHODS) {
    const route = routes.get(method);
    const missing = erasOf(traitsOf(method)!).filter((era) => !route?.[era]);
    if (!route) problems.push(`no method group answers "${method}"`);
    else for (const era of missing) problems.push(`no method group answers "${method}" in the ${era} era`);
  }
  if (problems.length > 0)
    throw new Error(`The MCP method table and the method groups disagree:\n- ${problems.join('\n- ')}`);
  return routes;
}
