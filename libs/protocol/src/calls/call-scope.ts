import { Injectable, Optional } from '@nestjs/common';
import { JsonRpcError, JsonRpcErrorCode, type McpClientRequestOptions, type McpLogLevel } from '#libs/core';
import { InjectGovernance, type McpGovernance, type ResultVerdict } from '#libs/governance';
import type { AuditGovernance } from '#libs/security';
import {
  CallCancellation,
  CallContext,
  HandlerFailedError,
  InjectInvocationOptions,
  type CallChannel,
  type CallFailure,
  type Invocation,
  type InvocationOptions,
} from '#libs/invocation';
import { HostState } from '../lifecycle/host-state';
import { notification, type JsonRpcId } from '../wire/json-rpc';
import { StatelessCalls } from './stateless-calls';
import type { ClientInputs } from '../methods/method-handler';
import type { McpRequest } from '../requests/mcp-request';
import type { ReplyChannel } from '../requests/reply-channel';
import type { AdmittedCall } from '../admission/admitted-call';
import { InputRounds } from '../inputs/input-rounds';
import type { InputRequiredResult, InputRound } from '../inputs/input-round';

const NO_META: Readonly<Record<string, unknown>> = Object.freeze({});
const ELICITATION_COMPLETE = 'notifications/elicitation/complete';

/**
 * How a call runs when not as its request alone would run it: a task's call runs under an id of
 * its own, answers nothing on the request's stream and asks its client through the task; a call
 * that may become a task midway says how (`continueAsTask`).
 */
export interface CallRun {
  /** The id its session finds it by (for `notifications/cancelled`): the request's by default. */
  id?: JsonRpcId;
  /** The way back to its client, in place of the request's. */
  reply?: ReplyChannel;
  /** Where its requests to the client go instead of the session (see `ClientInputs`). */
  clientInputs?: ClientInputs;
  /** Hands the rest of the call to a task (`McpCallContext.continueAsTask`); absent where it cannot become one. */
  continueAsTask?: () => Promise<void>;
}

/** Sends a call's notifications and requests to its client, the way its request came. */
class RequestCallChannel implements CallChannel {
  constructor(
    private readonly origin: McpRequest,
    private readonly reply: ReplyChannel,
    private readonly run: CallRun,
  ) {}

  get logLevel(): McpLogLevel | 'off' | undefined {
    const session = this.origin.session;
    // A 2026-07-28 request without a log level in its `_meta` gets no log messages at all.
    return session.stateless ? (session.logLevel ?? 'off') : session.logLevel;
  }

  get clientCapabilities(): Readonly<Record<string, unknown>> {
    return this.origin.session.clientCapabilities ?? {};
  }

  notify(method: string, params: Record<string, unknown>): void {
    // 2026-07-28 removed it: a URL-mode elicitation's outcome is learnt from the retry.
    if (method === ELICITATION_COMPLETE && this.origin.session.stateless) return;
    this.reply.send(notification(method, params));
  }

  get requestsUnavailable(): string | undefined {
    // Without a session (or inputs gathered otherwise) the answer would arrive on another POST with nothing to tie it to this call.
    return this.origin.session.id === undefined && !this.run.clientInputs
      ? 'needs a session: serve the host in stateful mode.'
      : undefined;
  }

  closeStream(): void {
    this.reply.release?.();
  }

  request(
    method: string,
    params: Record<string, unknown>,
    timeoutMs: number,
    signal: AbortSignal,
    options?: McpClientRequestOptions,
  ): Promise<unknown> {
    const inputs = this.run.clientInputs;
    if (inputs) return inputs.request(method, params, timeoutMs, signal, options);
    return this.origin.session.clientRequests.send(
      method,
      params,
      (message) => this.reply.send(message),
      timeoutMs,
      signal,
    );
  }

  missingCapability(
    capability: string,
    required: Record<string, unknown>,
    what: string,
    signal: AbortSignal,
  ): Promise<never> | undefined {
    return this.run.clientInputs?.missingCapability?.(capability, required, what, signal);
  }

  continueAsTask(): Promise<void> {
    return this.run.continueAsTask?.() ?? Promise.resolve();
  }
}

/**
 * Runs an admitted call (`AdmittedCall`) as a cancellable call: builds its `CallContext`,
 * registers it for `notifications/cancelled`, client disconnects and shutdown draining, and
 * unregisters it after. How the call ended goes on the request's note: the failure the body
 * returns with its value, or the one a `HandlerFailedError` it throws carries (a client's
 * cancellation wins over both).
 *
 * What a call answers leaves through here: governance screens it first, as the entry made it (its
 * guardrails record and withhold a secret they find), then the secret redactor scrubs a tool's
 * result (it would otherwise have hidden the secret from the guardrails, which then never record
 * nor withhold it).
 */
@Injectable()
export class CallScope {
  constructor(
    private readonly state: HostState,
    private readonly stateless: StatelessCalls,
    private readonly inputs: InputRounds,
    @Optional() @InjectGovernance() private readonly governance?: McpGovernance,
    @Optional() @InjectInvocationOptions() private readonly invocation?: Pick<InvocationOptions, 'redactor'>,
  ) {}

  /**
   * The input round of a 2026-07-28 call whose caller runs it with `run` (a call that becomes a
   * task midway answers its requests to the client this way until then); `undefined` where
   * `serve` would open none.
   * @throws JsonRpcError `-32602` as `serve` does
   */
  openInputRound(call: AdmittedCall): InputRound | undefined {
    return this.inputs.open(call.request, call.note, call.target);
  }

  /**
   * Runs the handler of a call of a catalog entry (`tools/call`, `prompts/get`, `resources/read`)
   * as `run` does. A 2026-07-28 request has no channel back to its client: its handler's requests
   * to the client (`ctx.elicit()`, `ctx.sample()`, `ctx.roots()`) are answered from the
   * request's `inputResponses` and `requestState`, and when one is not, the request is answered
   * with an `InputRequiredResult` instead (see `InputRound`).
   * @throws JsonRpcError `-32602` for a `requestState` that fails verification or an invalid
   *   answer, `-32021` when the handler asks for something the client did not declare
   */
  serve<T>(
    call: AdmittedCall,
    body: (context: CallContext) => Promise<Invocation<T>>,
  ): Promise<T | InputRequiredResult> {
    const round = this.openInputRound(call);
    if (!round) return this.run(call, body);
    return this.run<T | InputRequiredResult>(
      call,
      (context) => round.race(body(context), context.cancellation, call.note),
      { clientInputs: round },
    );
  }

  async run<T>(
    call: AdmittedCall,
    body: (context: CallContext) => Promise<Invocation<T>>,
    run: CallRun = {},
  ): Promise<T> {
    const { request, note } = call;
    const reply = run.reply ?? call.reply;
    const session = request.session;
    const id = run.id ?? request.id!;
    const cancellation = new CallCancellation();
    // In 2026-07-28, closing the request's stream is how a client cancels it (there is no notification).
    const stopWatching = reply.onLost?.((reason) =>
      session.stateless ? cancellation.cancelByClient(reason.message) : cancellation.cancel(reason),
    );
    // A session that outlives the request finds its calls by id (cancellation, closing it). Without
    // one, `notifications/cancelled` finds a call through its caller and id — except a 2026-07-28
    // call over HTTP, which its client cancels by closing the request's stream (`onLost`).
    const lasting = session.id !== undefined;
    if (lasting) session.inFlight.set(id, cancellation);
    const forget =
      lasting || (session.stateless && request.transport === 'http')
        ? undefined
        : this.stateless.add(request.principal.id, id, cancellation);
    this.state.begin(cancellation);
    const params = request.params;
    const meta = (typeof params._meta === 'object' && params._meta !== null ? params._meta : NO_META) as Record<
      string,
      unknown
    >;
    const progressToken = meta.progressToken;
    const context = new CallContext({
      requestId: id,
      sessionId: session.id,
      protocolVersion: session.protocolVersion,
      kind: call.kind,
      target: call.target,
      transport: request.transport,
      clientInfo: session.clientInfo,
      caller: request.principal,
      headers: request.headers,
      remoteAddress: request.remoteAddress,
      meta,
      progressToken: typeof progressToken === 'string' || typeof progressToken === 'number' ? progressToken : undefined,
      channel: new RequestCallChannel(request, reply, run),
      cancellation,
      onDownstream: (use) => (note.downstream = use),
    });
    let failure: CallFailure | undefined;
    let failureMessage: string | undefined;
    try {
      const outcome = await body(context);
      failure = outcome.failure;
      failureMessage = outcome.failureMessage;
      const value = this.governance?.screensResults ? this.screen(call, outcome.value) : outcome.value;
      // A tool's error result was redacted where it was made (its text goes to the audit trail too).
      return outcome.failure === undefined && call.kind === 'tool' ? this.withoutSecrets(value) : value;
    } catch (error) {
      // The dispatcher notes the JSON-RPC error after this; `fail` keeps this outcome, the first.
      if (error instanceof HandlerFailedError) failure = error.failure;
      throw error;
    } finally {
      if (cancellation.byClient) note.cancelledByClient((cancellation.cause as Error).message);
      else if (failure) note.fail(failure, undefined, failureMessage);
      forget?.();
      if (lasting) session.inFlight.delete(id);
      this.state.end(cancellation);
      stopWatching?.();
    }
  }

  /** Secrets never leave in a tool's result, content and structured content alike. */
  private withoutSecrets<T>(value: T): T {
    const redactor = this.invocation?.redactor;
    if (!redactor || (value as { resultType?: unknown } | null)?.resultType === 'input_required') return value;
    return redactor.redactDeep(value);
  }

  /**
   * Governance's result policies and guardrails on what the entry answered: what they let through
   * (redacted), or, when they withhold it, a tool's error result (a prompt's or resource's
   * `-32602`) saying so. What they decided goes on the note for the audit trail.
   */
  private screen<T>(call: AdmittedCall, value: T): T {
    if (
      typeof value !== 'object' ||
      value === null ||
      (value as { resultType?: unknown }).resultType === 'input_required'
    )
      return value;
    const { request, note } = call;
    const verdict = this.governance!.screenResult(
      {
        principal: request.principal,
        client: request.session.clientInfo,
        transport: request.transport,
        kind: call.kind,
        entry: call.entry,
        args: call.args,
      },
      value,
    );
    note.governance = withResultDecisions(note.governance, verdict);
    if (verdict.kind === 'passed') return verdict.result as T;
    note.fail('denied', JsonRpcErrorCode.INVALID_PARAMS, verdict.message);
    if (call.kind === 'tool') return { content: [{ type: 'text', text: verdict.message }], isError: true } as T;
    throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, verdict.message);
  }
}

/** The call's governance record with what was decided about its result added. */
function withResultDecisions(given: AuditGovernance | undefined, verdict: ResultVerdict): AuditGovernance | undefined {
  const { refused, findings } = verdict;
  if (!refused && !findings) return given;
  return {
    ...given,
    ...(refused && { refused: [...(given?.refused ?? []), ...refused] }),
    ...(findings && { findings: [...(given?.findings ?? []), ...findings] }),
  };
}
