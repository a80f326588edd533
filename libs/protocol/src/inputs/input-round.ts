import { createHash } from 'node:crypto';
import { JsonRpcError, JsonRpcErrorCode, McpClientRequestError, type McpClientRequestOptions } from '#libs/core';
import { canonicalJson } from '#libs/security';
import type { CallCancellation, Invocation } from '#libs/invocation';
import { missingClientCapability } from '../eras/request-envelope';
import type { ClientInputs } from '../methods/method-handler';
import { answerProblem, type InputMethod } from './input-responses';
import { InputRoundMessages } from './input-round.messages';
import type { RequestNote } from '../events/request-note';

/** The 2026-07-28 result that asks the client for input before the request can complete. */
export interface InputRequiredResult {
  resultType: 'input_required';
  inputRequests: Record<string, { method: InputMethod; params: Record<string, unknown> }>;
  requestState: string;
}

/** The request a state belongs to: who sent which method, naming which entry, with which arguments. */
export interface RequestBinding {
  /** The principal's id. */
  p: string;
  /** The method (`tools/call`, `prompts/get`, `resources/read`). */
  m: string;
  /** The tool or prompt name, or the resource URI. */
  n: string;
  /** `digestOf(arguments)`. */
  d: string;
}

/** What `requestState` carries (sealed: the client can neither read nor change it). */
export interface RequestState extends RequestBinding {
  v: 1;
  /** Expires at (ms since the epoch). */
  x: number;
  /** The requests the round that sealed it asked for: key → digest of the request. */
  q: Record<string, string>;
  /** The answers of earlier rounds: key → [digest of the request it answers, the client's result]. */
  a: Record<string, [string, unknown]>;
  /**
   * The generation of the answer claims it was issued under (`AnswerClaims`): its authorising
   * answers count only while the claims of that generation are kept.
   */
  g?: string;
}

/** How a round ended the request: asking for input, or with a protocol error. */
export type InputDecision = { kind: 'input'; result: InputRequiredResult } | { kind: 'error'; error: JsonRpcError };

/** A short, stable digest of a JSON value (key order does not matter). */
export function digestOf(value: unknown): string {
  return createHash('sha256')
    .update(canonicalJson(value ?? {}))
    .digest('base64url')
    .slice(0, 22);
}

/**
 * One run of a 2026-07-28 call's handler, and the requests it makes of its client. The request
 * is stateless, so a call that needs input is run again from the start when the client brings
 * it: each request the handler makes is answered, by its key, from the answers carried in the
 * request's `requestState` (earlier rounds) or from its `inputResponses` (this round). When it
 * asks for something not answered yet, every request it makes before it settles (a macrotask
 * later: `Promise.all` of several asks) is gathered into one `InputRequiredResult`, and the run
 * is abandoned: its pending requests reject, its signal aborts, and its result is never used.
 *
 * An answer counts only for the very request it was given for: the digest of that request is
 * sealed with it, so a handler that asks something else on a later run is asked again.
 */
export class InputRound implements ClientInputs {
  private count = 0;
  // Made on the first request to the client: most calls make none.
  private keys: Set<string> | undefined;
  /** The answers this run used, carried to the next round. */
  private used: Record<string, [string, unknown]> | undefined;
  private asked: Map<string, { method: InputMethod; params: Record<string, unknown>; digest: string }> | undefined;
  private flush: NodeJS.Immediate | undefined;
  private decision: InputDecision | undefined;
  private finished = false;
  /** Wakes `race` when the round is decided (set while it waits). */
  private wake: (() => boolean) | undefined;

  /**
   * @param earlier the state the request brought back, verified (none on a first round)
   * @param responses the request's `inputResponses` (an object), if any
   * @param seal seals the state of the next round
   * @param claim claims the use of an authorising answer (by key) on the state brought back: `false` when it was used already
   */
  constructor(
    private readonly binding: RequestBinding,
    private readonly earlier: RequestState | undefined,
    private readonly responses: Readonly<Record<string, unknown>> | undefined,
    private readonly seal: (state: RequestState) => string,
    private readonly ttlMs: number,
    private readonly claim?: (key: string) => Promise<boolean>,
  ) {}

  request(
    method: string,
    params: Record<string, unknown>,
    _timeoutMs: number,
    signal: AbortSignal,
    options?: McpClientRequestOptions,
  ): Promise<unknown> {
    if (this.decision || this.finished) return this.abandoned(method, signal);
    const name = this.keyOf(options?.key);
    const wire = wireParams(method, params);
    const onlyWhenAsked = options?.onlyWhenAsked === true;
    // A request that takes only asked-for answers is another request than the same one that takes any.
    const digest = digestOf(onlyWhenAsked ? [method, wire, 'asked'] : [method, wire]);
    const carried = this.earlier?.a[name];
    if (carried && carried[0] === digest) return this.authorised(name, carried, onlyWhenAsked, method, params, signal);
    const given = this.responses?.[name];
    // With a state, only an answer to the request the last round asked counts; without one, the
    // client's answer stands alone, unless the request takes only answers it asked for.
    const asked = this.earlier ? this.earlier.q[name] === digest : !onlyWhenAsked;
    if (given !== undefined && asked) {
      const problem = answerProblem(method as InputMethod, given);
      if (problem) {
        const message = InputRoundMessages.invalidResponse(name, problem);
        return this.end(
          { kind: 'error', error: new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, message) },
          method,
          signal,
        );
      }
      return this.authorised(name, [digest, given], onlyWhenAsked, method, params, signal);
    }
    return this.askFor(name, method, wire, digest, signal);
  }

  /** Asks for `name` in this round's `InputRequiredResult`. */
  private askFor(
    name: string,
    method: string,
    wire: Record<string, unknown>,
    digest: string,
    signal: AbortSignal,
  ): Promise<never> {
    (this.asked ??= new Map()).set(name, { method: method as InputMethod, params: wire, digest });
    // Siblings asked in the same turn (Promise.all) join this round: it is decided a macrotask later.
    clearImmediate(this.flush);
    this.flush = setImmediate(() => this.ask());
    return this.abandoned(method, signal);
  }

  /**
   * Uses an answer; one that authorises something (`onlyWhenAsked`) only once per state brought
   * back: the same retry sent again is asked again, and acts at most once.
   */
  private authorised(
    name: string,
    answer: [string, unknown],
    onlyWhenAsked: boolean,
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<unknown> {
    if (!onlyWhenAsked || !this.claim || !this.earlier) return this.use(name, answer);
    return this.claim(name).then((first) =>
      first ? this.use(name, answer) : this.askFor(name, method, wireParams(method, params), answer[0], signal),
    );
  }

  missingCapability(
    capability: string,
    required: Record<string, unknown>,
    what: string,
    signal: AbortSignal,
  ): Promise<never> {
    const caller = InputRoundMessages.callerOf(this.binding.m, this.binding.n);
    const error = missingClientCapability(capability, `${caller} asks the client for ${what}`, required);
    return this.end({ kind: 'error', error }, capability, signal);
  }

  /** The request was answered with an `InputRequiredResult` (the run was stopped to ask). */
  get askedForInput(): boolean {
    return this.decision?.kind === 'input';
  }

  /**
   * The call goes on elsewhere (it became a task, whose own inputs answer its requests from now
   * on): this round decides nothing more, and `race` waits for the call's own end.
   */
  handOff(): void {
    this.finished = true;
    clearImmediate(this.flush);
  }

  /**
   * Waits for the handler's run or for this round's decision, whichever comes first. A decision
   * cancels the run (its result is dropped) and answers the request: an `InputRequiredResult`,
   * or the protocol error it throws.
   * @throws JsonRpcError the round's error (an invalid answer, a missing client capability), or the run's
   */
  race<T>(
    running: Promise<Invocation<T>>,
    cancellation: CallCancellation,
    note?: RequestNote,
  ): Promise<Invocation<T | InputRequiredResult>> {
    // No async frame and one promise: this runs on every 2026 call that may ask.
    return new Promise((resolve, reject) => {
      /** Ends the round; true when its decision answers the request (then the run is cancelled). */
      const decided = (): boolean => {
        this.finished = true;
        clearImmediate(this.flush);
        const decision = this.decision;
        if (!decision) return false;
        cancellation.cancel(
          new Error(InputRoundMessages.abandoned(InputRoundMessages.callerOf(this.binding.m, this.binding.n))),
        );
        if (decision.kind === 'error') reject(decision.error);
        else {
          // A round that only asked is no request of its own: the retry that brings the input is.
          if (note) note.continuedByRetry = true;
          resolve({ value: decision.result });
        }
        return true;
      };
      // The run is always watched, so that its rejection once abandoned is never unhandled.
      running.then(
        (outcome) => decided() || resolve(outcome),
        (error: unknown) => decided() || reject(error),
      );
      // Decided already: the handler asked something invalid before its first await.
      if (this.decision) decided();
      else this.wake = decided;
    });
  }

  /** The request's key: the name the handler gave it or its place in the call, unique within the call. */
  private keyOf(given: string | undefined): string {
    this.count++;
    const base = typeof given === 'string' && given !== '' ? given : String(this.count);
    let key = base;
    const keys = (this.keys ??= new Set());
    for (let n = 2; keys.has(key); n++) key = `${base}-${n}`;
    keys.add(key);
    return key;
  }

  private use(key: string, answer: [string, unknown]): Promise<unknown> {
    (this.used ??= {})[key] = answer;
    return Promise.resolve(answer[1]);
  }

  /** Ends the round with the requests not answered yet. */
  private ask(): void {
    if (this.decision || this.finished || !this.asked) return;
    const inputRequests: InputRequiredResult['inputRequests'] = {};
    const digests: Record<string, string> = {};
    for (const [key, { method, params, digest }] of this.asked) {
      inputRequests[key] = { method, params };
      digests[key] = digest;
    }
    const { p, m, n, d } = this.binding; // fields, not a spread: `d` may be a getter
    const requestState = this.seal({ p, m, n, d, v: 1, x: Date.now() + this.ttlMs, q: digests, a: this.used ?? {} });
    this.end({ kind: 'input', result: { resultType: 'input_required', inputRequests, requestState } });
  }

  private end(decision: InputDecision): void;
  private end(decision: InputDecision, method: string, signal: AbortSignal): Promise<never>;
  private end(decision: InputDecision, method?: string, signal?: AbortSignal): Promise<never> | void {
    if (!this.decision) {
      this.decision = decision;
      clearImmediate(this.flush);
      this.wake?.();
    }
    return method === undefined ? undefined : this.abandoned(method, signal!);
  }

  /**
   * What a request of an abandoned run gets: nothing until the run is cancelled (right after the
   * round is decided), then a rejection, so that the handler unwinds (its `finally` blocks run)
   * without acting on an answer.
   */
  private abandoned(method: string, signal: AbortSignal): Promise<never> {
    const pending = new Promise<never>((_resolve, reject) => {
      const stop = () => reject(new McpClientRequestError(InputRoundMessages.abandoned(method), 'cancelled'));
      if (signal.aborted) stop();
      else signal.addEventListener('abort', stop, { once: true });
    });
    // A handler that had not awaited it yet (`const asked = ctx.elicit(…); await other(); await asked`)
    // must not make an unhandled rejection of it: that would end the process.
    pending.catch(() => undefined);
    return pending;
  }
}

/**
 * A request's params as the client gets them. 2026-07-28 removed `elicitationId` from URL-mode
 * elicitation (the retry itself tells the outcome).
 */
function wireParams(method: string, params: Record<string, unknown>): Record<string, unknown> {
  if (method !== 'elicitation/create' || params.mode !== 'url' || !('elicitationId' in params)) return params;
  const { elicitationId, ...rest } = params;
  return rest;
}
