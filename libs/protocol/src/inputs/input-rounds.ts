import { Injectable, Optional } from '@nestjs/common';
import { JsonRpcError, JsonRpcErrorCode } from '#libs/core';
import type { McpRequest } from '../requests/mcp-request';
import type { RequestNote } from '../events/request-note';
import { digestOf, InputRound, type RequestBinding, type RequestState } from './input-round';
import { InputRoundMessages } from './input-round.messages';
import { RequestStateSealer } from './request-state.sealer';
import { InjectAnswerClaims, type AnswerClaims } from './answer-claims';
import { InMemoryAnswerClaims } from './in-memory-answer-claims';

const invalid = (message: string) => new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, message);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether a verified payload has the fields of a `RequestState` (it was sealed by this code, so only the version can differ). */
function isRequestState(value: unknown): value is RequestState {
  return (
    isRecord(value) &&
    value.v === 1 &&
    typeof value.x === 'number' &&
    ['p', 'm', 'n', 'd'].every((field) => typeof value[field] === 'string') &&
    isRecord(value.q) &&
    isRecord(value.a) &&
    (value.g === undefined || typeof value.g === 'string')
  );
}

/**
 * What a request's state is bound to. The digest of the arguments is taken when first read (a
 * state is sealed or verified): most calls never ask their client anything, and hashing their
 * arguments would be most of what a round costs them.
 */
class LazyBinding implements RequestBinding {
  private digest: string | undefined;

  constructor(
    readonly p: string,
    readonly m: string,
    readonly n: string,
    private readonly args: unknown,
  ) {}

  get d(): string {
    return (this.digest ??= digestOf(this.args));
  }
}

/**
 * Opens the input round of a 2026-07-28 request that runs a catalog entry (`tools/call`,
 * `prompts/get`, `resources/read`: the requests that may answer `input_required`): checks its
 * `inputResponses` and verifies the `requestState` it brought back. The state must be one this
 * host sealed, unchanged, not expired, for this principal and for this very request (method,
 * entry, digest of the arguments); anything else is refused with `-32602`.
 */
@Injectable()
export class InputRounds {
  constructor(
    private readonly sealer: RequestStateSealer,
    // This process's own claims when none is given (specs).
    @Optional() @InjectAnswerClaims() private readonly claims: AnswerClaims = new InMemoryAnswerClaims(),
  ) {}

  /**
   * The round of this request, or `undefined` when its requests to the client go elsewhere (a
   * 2025 session, or a request that runs no catalog entry).
   * @throws JsonRpcError `-32602` for malformed `inputResponses` or a `requestState` that fails verification
   */
  open(request: McpRequest, note: RequestNote | undefined, target: string): InputRound | undefined {
    if (!request.session.stateless || !note?.traits?.runs || note.method === null) return undefined;
    const params = request.params;
    const responses = params.inputResponses;
    if (responses !== undefined && !isRecord(responses)) throw invalid(InputRoundMessages.responsesNotObject());
    const sealed = params.requestState;
    if (sealed !== undefined && typeof sealed !== 'string') throw invalid(InputRoundMessages.stateNotString());
    const binding = new LazyBinding(request.principal.id, note.method, target, params.arguments);
    const earlier = sealed === undefined ? undefined : this.verify(sealed, binding);
    // Each sealed state is another text (its IV is random): its digest names this retry.
    const claim = earlier && ((key: string) => this.claims.claim(`${digestOf(sealed)}:${key}`, earlier.x, earlier.g));
    // Sealed under the claims' generation, so that it cannot outlive them (a restart on an empty store).
    const seal = (state: RequestState) => this.sealer.seal({ ...state, g: this.claims.generation });
    return new InputRound(binding, earlier, responses, seal, this.sealer.ttlMs, claim);
  }

  private verify(sealed: string, binding: RequestBinding): RequestState {
    const state = this.sealer.open(sealed);
    if (!isRequestState(state)) throw invalid(InputRoundMessages.stateAltered());
    if (state.x <= Date.now()) throw invalid(InputRoundMessages.stateExpired(this.sealer.ttlMs));
    if (state.p !== binding.p) throw invalid(InputRoundMessages.stateOfOtherPrincipal());
    if (state.m !== binding.m || state.n !== binding.n || state.d !== binding.d)
      throw invalid(InputRoundMessages.stateOfOtherRequest());
    return state;
  }
}
