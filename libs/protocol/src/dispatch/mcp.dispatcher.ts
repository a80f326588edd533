import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { InjectProtocolOptions, type ProtocolOptions } from '../options/protocol.options';
import { checkRequestLimits, RequestLimitError } from '../wire/request-limits';
import { AccessDeniedError } from '../admission/access-control';
import { RequestNote } from '../events/request-note';
import { outcomeOfCode, RequestEvents } from '../events/request-events';
import { CallAdmission } from '../admission/call-admission';
import { McpTracing } from './mcp-tracing';
import { StatelessCalls } from '../calls/stateless-calls';
import { JsonRpcError, JsonRpcErrorCode, STATELESS_PROTOCOL_VERSION as STATELESS } from '#libs/core';
import { errorResponse, resultResponse, type JsonRpcId, type JsonRpcMessage, type MessageKind } from '../wire/json-rpc';
import { MCP_METHOD_GROUPS, type DispatchScope, type McpMethods, type MethodHandler } from '../methods/method-handler';
import { MCP_REQUEST_METHODS, traitsOf, type McpMethodTraits } from '../wire/mcp-method.table';
import { envelopeVersionOf, readEnvelope } from '../eras/request-envelope';
import { McpSession } from '../sessions/mcp-session';
import { InjectSessionRelay, type SessionRelay } from '../sessions/session-relay';
import { statelessResult } from '../eras/stateless-result';

export type { DispatchScope } from '../methods/method-handler';

const NOT_INITIALIZED =
  'Invalid Request: the session is not initialized; send initialize first (only ping may come before it)';

/**
 * Answers JSON-RPC messages for any transport. It holds no connection state: everything about
 * the client comes with the message's scope, so one dispatcher serves sessions, stateless
 * requests and stdio alike (and, later, revisions that carry their state in `_meta`).
 */
@Injectable()
export class McpDispatcher {
  private readonly logger = new Logger('McpDispatcher');
  private readonly handlers: ReadonlyMap<string, MethodHandler>;

  constructor(
    @InjectProtocolOptions() private readonly options: ProtocolOptions,
    @Inject(MCP_METHOD_GROUPS) groups: readonly McpMethods[],
    private readonly events: RequestEvents,
    private readonly admission: CallAdmission,
    private readonly tracing: McpTracing,
    private readonly stateless: StatelessCalls,
    @Optional() @InjectSessionRelay() private readonly relay?: SessionRelay,
  ) {
    this.handlers = routesOf(groups);
  }

  /**
   * Handles one message; resolves to the serialized response, or `undefined` when none is due
   * (notifications, responses, and requests the client cancelled).
   */
  async dispatch(kind: MessageKind, message: JsonRpcMessage, scope: DispatchScope): Promise<string | undefined> {
    if (kind === 'notification') {
      this.onNotification(message, scope);
      return undefined;
    }
    if (kind === 'response') {
      const error = message.error as { message?: unknown; code?: unknown } | undefined;
      if (scope.session.clientRequests.settle(message.id, message.result, error)) return undefined;
      // Another replica of the session may be waiting for it.
      if (!this.relay?.forwardResponse(scope.session, message.id, message.result, error))
        this.logger.warn(`Ignored a response to unknown request ${JSON.stringify(message.id)}`);
      return undefined;
    }
    const id = message.id!;
    const method = message.method ?? null;
    // A stateless (2026-07-28) request brings what a session would hold in its `_meta`: it is
    // served on a session of its own, whatever the transport passed.
    let envelopeError: JsonRpcError | undefined;
    if (scope.session.stateless || envelopeVersionOf(message.params) !== undefined) {
      try {
        if (scope.headerMismatch) throw scope.headerMismatch;
        // The scope is the transport's object for this one message: the session is set in place.
        scope.session = McpSession.forRequest(readEnvelope(message.params), scope.principal.id);
      } catch (error) {
        if (!(error instanceof JsonRpcError)) throw error;
        envelopeError = error;
        if (!scope.session.stateless) scope.session = new McpSession(undefined, STATELESS);
      }
    }
    const session = scope.session;
    const note = new RequestNote(
      method,
      traitsOf(method),
      scope.transport,
      scope.principal.id,
      session.id,
      session.clientInfo,
      scope.remoteAddress,
      session.protocolVersion,
    );
    try {
      // A span per request when an OpenTelemetry SDK is registered; the note gets its trace id.
      const response = await this.tracing.run(note, id, message.params, scope, () =>
        envelopeError
          ? Promise.resolve(this.refuse(id, envelopeError, scope, note))
          : this.answer(id, message, scope, note),
      );
      return note.withdrawn ? undefined : response;
    } finally {
      this.events.finish(note);
      scope.onFinished?.(note.outcome);
    }
  }

  private async answer(
    id: JsonRpcId,
    message: JsonRpcMessage,
    scope: DispatchScope,
    note: RequestNote,
  ): Promise<string> {
    // A session is used only once `initialize` opened it (stateful HTTP opens it with the session;
    // stdio has one from the start). Only `ping` may come first, as the spec allows.
    if (
      scope.session.id !== undefined &&
      !scope.session.opened &&
      message.method !== 'initialize' &&
      message.method !== 'ping'
    ) {
      note.fail('invalid', JsonRpcErrorCode.INVALID_REQUEST, NOT_INITIALIZED);
      return errorResponse(id, JsonRpcErrorCode.INVALID_REQUEST, NOT_INITIALIZED);
    }
    const stateless = scope.session.stateless;
    const handler = this.handlers.get(message.method!);
    if (!handler || !servedIn(note.traits, stateless)) {
      const notFound = new JsonRpcError(
        JsonRpcErrorCode.METHOD_NOT_FOUND,
        handler
          ? `Method not found: ${message.method} is not part of protocol ${scope.session.protocolVersion}`
          : `Method not found: ${message.method}`,
        undefined,
        stateless ? 404 : undefined,
      );
      return this.refuse(id, notFound, scope, note);
    }
    try {
      const params = message.params ?? {};
      checkRequestLimits(params, this.options.limits);
      // Calls of catalog entries pass the audit gate in their admission, once the entry is known
      // to exist for this caller; guarded methods that name no entry (task results) pass it here.
      if (note.traits?.guarded && !note.traits.names) this.admission.checkAuditGate(note);
      const result = await handler(params, id, scope, note);
      return resultResponse(id, stateless ? statelessResult(result, note.traits!) : result);
    } catch (error) {
      if (error instanceof JsonRpcError) return this.refuse(id, error, scope, note);
      this.logger.error(`${message.method} failed`, (error as Error)?.stack ?? String(error));
      note.fail('error', JsonRpcErrorCode.INTERNAL_ERROR, 'Internal error');
      return errorResponse(id, JsonRpcErrorCode.INTERNAL_ERROR, 'Internal error');
    }
  }

  /** Answers a protocol error: recorded on the note, logged below production levels, HTTP status passed on. */
  private refuse(id: JsonRpcId, error: JsonRpcError, scope: DispatchScope, note: RequestNote): string {
    const outcome =
      error instanceof AccessDeniedError
        ? 'denied'
        : error instanceof RequestLimitError
          ? 'limited'
          : outcomeOfCode(error.code);
    // 2026-07-28 made "resource not found" an invalid-params error; tools throw one error for both eras.
    const code =
      error.code === JsonRpcErrorCode.RESOURCE_NOT_FOUND && scope.session.stateless
        ? JsonRpcErrorCode.INVALID_PARAMS
        : error.code;
    note.fail(outcome, code, error.message);
    // The client's mistake, not the host's: one line, below the levels production logs keep.
    this.logger.debug(`${note.method} refused (${code}): ${error.message}`);
    if (error.httpStatus !== undefined) scope.httpStatus = error.httpStatus;
    return errorResponse(id, code, error.message, error.data);
  }

  private onNotification(message: JsonRpcMessage, scope: DispatchScope): void {
    switch (message.method) {
      case 'notifications/initialized':
        scope.session.initialized = true;
        break;
      case 'notifications/cancelled': {
        const requestId = message.params?.requestId;
        if (typeof requestId === 'string' || typeof requestId === 'number') {
          // Stateless requests (including 2026-07-28 ones on stdio) run on sessions of their own.
          const call =
            (scope.session.id === undefined ? undefined : scope.session.inFlight.get(requestId)) ??
            this.stateless.find(scope.principal.id, requestId);
          const given = message.params?.reason;
          const reason = typeof given === 'string' && given ? given.slice(0, 200) : 'no reason given';
          if (call) call.cancelByClient(reason);
          // The call may run on another replica of the session.
          else this.relay?.forwardCancel(scope.session, requestId, reason);
        }
        break;
      }
      default:
      // Unknown notifications are ignored, as JSON-RPC requires.
    }
  }
}

/** Whether a method of this row exists in the request's protocol era. */
function servedIn(traits: McpMethodTraits | undefined, stateless: boolean): boolean {
  return traits?.era === undefined || traits.era === (stateless ? 'stateless' : 'session');
}

/**
 * The route of every method of the table, from the groups that answer them.
 * @throws Error when a method has no handler, two, or a handler has no row in the table
 */
function routesOf(groups: readonly McpMethods[]): ReadonlyMap<string, MethodHandler> {
  const routes = new Map<string, MethodHandler>();
  const problems: string[] = [];
  for (const group of groups) {
    for (const [method, handler] of Object.entries(group.methods)) {
      if (!traitsOf(method))
        problems.push(`${group.constructor.name} answers "${method}", which the method table does not list`);
      else if (routes.has(method)) problems.push(`"${method}" is answered by two method groups`);
      else if (handler) routes.set(method, handler);
    }
  }
  for (const method of MCP_REQUEST_METHODS)
    if (!routes.has(method)) problems.push(`no method group answers "${method}"`);
  if (problems.length > 0)
    throw new Error(`The MCP method table and the method groups disagree:\n- ${problems.join('\n- ')}`);
  return routes;
}
