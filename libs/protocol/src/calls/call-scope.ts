import { Injectable } from '@nestjs/common';
import type { McpCallKind, McpClientRequestOptions, McpLogLevel } from '#libs/core';
import {
  CallCancellation,
  CallContext,
  HandlerFailedError,
  type CallChannel,
  type CallFailure,
  type Invocation,
} from '#libs/invocation';
import { HostState } from '../lifecycle/host-state';
import { notification, type JsonRpcId } from '../wire/json-rpc';
import { StatelessCalls } from './stateless-calls';
import type { DispatchScope } from '../methods/method-handler';
import type { RequestNote } from '../events/request-note';
import { InputRounds } from '../inputs/input-rounds';
import type { InputRequiredResult, InputRound } from '../inputs/input-round';

const NO_META: Readonly<Record<string, unknown>> = Object.freeze({});

/** Sends a call's notifications on the transport of the request that started it. */
class ScopeChannel implements CallChannel {
  constructor(private readonly scope: DispatchScope) {}

  get logLevel(): McpLogLevel | 'off' | undefined {
    const session = this.scope.session;
    // A 2026-07-28 request without a log level in its `_meta` gets no log messages at all.
    return session.stateless ? (session.logLevel ?? 'off') : session.logLevel;
  }

  get clientCapabilities(): Readonly<Record<string, unknown>> {
    return this.scope.session.clientCapabilities ?? {};
  }

  notify(method: string, params: Record<string, unknown>): void {
    // 2026-07-28 removed it: a URL-mode elicitation's outcome is learnt from the retry.
    if (method === ELICITATION_COMPLETE && this.scope.session.stateless) return;
    this.scope.notify(notification(method, params));
  }

  get requestsUnavailable(): string | undefined {
    // Without a session (or inputs gathered otherwise) the answer would arrive on another POST with nothing to tie it to this call.
    return this.scope.session.id === undefined && !this.scope.clientInputs
      ? 'needs a session: serve the host in stateful mode.'
      : undefined;
  }

  closeStream(): void {
    this.scope.closeStream?.();
  }

  request(
    method: string,
    params: Record<string, unknown>,
    timeoutMs: number,
    signal: AbortSignal,
    options?: McpClientRequestOptions,
  ): Promise<unknown> {
    if (this.scope.clientInputs) return this.scope.clientInputs.request(method, params, timeoutMs, signal, options);
    return this.scope.session.clientRequests.send(method, params, this.scope.notify, timeoutMs, signal);
  }

  missingCapability(
    capability: string,
    required: Record<string, unknown>,
    what: string,
    signal: AbortSignal,
  ): Promise<never> | undefined {
    return this.scope.clientInputs?.missingCapability?.(capability, required, what, signal);
  }

  continueAsTask(): Promise<void> {
    return this.scope.continueAsTask?.() ?? Promise.resolve();
  }
}

const ELICITATION_COMPLETE = 'notifications/elicitation/complete';

/**
 * Runs a handler as a cancellable call: builds its `CallContext`, registers it for
 * `notifications/cancelled`, client disconnects and shutdown draining, and unregisters it after.
 * How the call ended goes on the request's note: the failure the body returns with its value, or
 * the one a `HandlerFailedError` it throws carries (a client's cancellation wins over both).
 */
@Injectable()
export class CallScope {
  constructor(
    private readonly state: HostState,
    private readonly stateless: StatelessCalls,
    private readonly inputs: InputRounds,
  ) {}

  /**
   * The input round of a 2026-07-28 request whose call its caller runs with `run` (a call that
   * becomes a task midway answers its requests to the client this way until then); `undefined`
   * where `serve` would open none.
   * @throws JsonRpcError `-32602` as `serve` does
   */
  openInputRound(
    scope: DispatchScope,
    note: RequestNote | undefined,
    target: string,
    params: Record<string, unknown>,
  ): InputRound | undefined {
    return this.inputs.open(scope, note, target, params);
  }

  /**
   * Runs the handler of a request that names a catalog entry (`tools/call`, `prompts/get`,
   * `resources/read`) as `run` does. A 2026-07-28 request has no channel back to its client:
   * its handler's requests to the client (`ctx.elicit()`, `ctx.sample()`, `ctx.roots()`) are
   * answered from the request's `inputResponses` and `requestState`, and when one is not, the
   * request is answered with an `InputRequiredResult` instead (see `InputRound`).
   * @throws JsonRpcError `-32602` for a `requestState` that fails verification or an invalid
   *   answer, `-32021` when the handler asks for something the client did not declare
   */
  serve<T>(
    scope: DispatchScope,
    id: JsonRpcId,
    kind: McpCallKind,
    target: string,
    params: Record<string, unknown>,
    note: RequestNote | undefined,
    body: (context: CallContext) => Promise<Invocation<T>>,
  ): Promise<T | InputRequiredResult> {
    const round = this.openInputRound(scope, note, target, params);
    if (!round) return this.run(scope, id, kind, target, params, note, body);
    // The scope is the transport's object for this one request: the round joins it in place.
    scope.clientInputs = round;
    return this.run<T | InputRequiredResult>(scope, id, kind, target, params, note, (context) =>
      round.race(body(context), context.cancellation, note),
    );
  }

  async run<T>(
    scope: DispatchScope,
    id: JsonRpcId,
    kind: McpCallKind,
    target: string,
    params: Record<string, unknown>,
    note: RequestNote | undefined,
    body: (context: CallContext) => Promise<Invocation<T>>,
  ): Promise<T> {
    const session = scope.session;
    const cancellation = new CallCancellation();
    // In 2026-07-28, closing the request's stream is how a client cancels it (there is no notification).
    const stopWatching = scope.onLost?.((reason) =>
      session.stateless ? cancellation.cancelByClient(reason.message) : cancellation.cancel(reason),
    );
    // A session that outlives the request finds its calls by id (cancellation, closing it). Without
    // one, `notifications/cancelled` finds a call through its caller and id — except a 2026-07-28
    // call over HTTP, which its client cancels by closing the request's stream (`onLost`).
    const lasting = session.id !== undefined;
    if (lasting) session.inFlight.set(id, cancellation);
    const forget =
      lasting || (session.stateless && scope.transport === 'http')
        ? undefined
        : this.stateless.add(scope.principal.id, id, cancellation);
    this.state.begin(cancellation);
    const meta = (typeof params._meta === 'object' && params._meta !== null ? params._meta : NO_META) as Record<
      string,
      unknown
    >;
    const progressToken = meta.progressToken;
    const context = new CallContext({
      requestId: id,
      sessionId: session.id,
      protocolVersion: session.protocolVersion,
      kind,
      target,
      transport: scope.transport,
      clientInfo: session.clientInfo,
      caller: scope.principal,
      headers: scope.headers,
      remoteAddress: scope.remoteAddress,
      meta,
      progressToken: typeof progressToken === 'string' || typeof progressToken === 'number' ? progressToken : undefined,
      channel: new ScopeChannel(scope),
      cancellation,
    });
    let failure: CallFailure | undefined;
    let failureMessage: string | undefined;
    try {
      const outcome = await body(context);
      failure = outcome.failure;
      failureMessage = outcome.failureMessage;
      return outcome.value;
    } catch (error) {
      // The dispatcher notes the JSON-RPC error after this; `fail` keeps this outcome, the first.
      if (error instanceof HandlerFailedError) failure = error.failure;
      throw error;
    } finally {
      if (note && cancellation.byClient) note.cancelledByClient((cancellation.cause as Error).message);
      else if (note && failure) note.fail(failure, undefined, failureMessage);
      forget?.();
      if (lasting) session.inFlight.delete(id);
      this.state.end(cancellation);
      stopWatching?.();
    }
  }
}
