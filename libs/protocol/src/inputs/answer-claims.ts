import { Inject } from '@nestjs/common';

/**
 * The answers that authorise something (a confirmation: `onlyWhenAsked`) a 2026-07-28 retry
 * brought, each usable once: the retry's sealed state and the answer's key are claimed before
 * the answer counts, so the same retry sent again — to this replica or, with the `cluster`
 * option, to any — is asked again instead of acting twice. A claim lasts as long as the state it
 * is made on could be brought back.
 *
 * A claim is only as durable as the store that keeps it (this process's memory:
 * `InMemoryAnswerClaims`, or the cluster's backplane), while a state sealed with a fixed
 * `requestState.secret` outlives a restart. So the claims have a **generation**: a random id
 * made when their store starts empty — for each process in memory; once per backplane, in a key
 * set only if absent, which is gone again when the backplane comes back empty (Redis restarted
 * without persistence, or flushed). Every state is sealed with the generation it was issued
 * under, and an answer of a state of another generation is never claimed: its retry is asked
 * again, as a replay is. So no state outlives the claims that keep it single-use. (Chosen over a
 * second, durable claim table: claims stay where the replicas' other shared state is, under the
 * same fail-closed contract, and a persistent Redis keeps both generation and claims across
 * restarts; what a restart on an empty store costs is one more question to the user of a round
 * in flight.)
 */
export interface AnswerClaims {
  /** The generation a state sealed now is issued under. */
  readonly generation: string;
  /**
   * `true` when this is the first use of `id` (until `expiresAt`, ms since the epoch) by a state of
   * `generation`; `false` when it was used, or when the state is of another generation than the
   * claims now kept (they may have lost its use).
   * @throws when a shared store cannot be reached (the call fails closed)
   */
  claim(id: string, expiresAt: number, generation: string | undefined): Promise<boolean>;
}

/** Token of the `AnswerClaims` (the hosting module provides the one its options ask for). */
export const MCP_ANSWER_CLAIMS = Symbol('MCP:ANSWER_CLAIMS');

/** Injects the `AnswerClaims`. */
export const InjectAnswerClaims = () => Inject(MCP_ANSWER_CLAIMS);
