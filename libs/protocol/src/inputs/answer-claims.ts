import { randomBytes } from 'node:crypto';
import { Injectable, Logger, Optional, type OnApplicationBootstrap } from '@nestjs/common';
import { JsonRpcError, JsonRpcErrorCode } from '#libs/core';
import { ClusterMessages, McpCluster } from '#libs/cluster';
import { InjectProtocolOptions, type ProtocolOptions } from '../options/protocol.options';

/** How often the claims of this process are swept of expired ones, at most. */
const SWEEP_EVERY_MS = 60_000;
/**
 * How long the cluster's generation key lives. Far longer than any state (10 min by default);
 * should it lapse, a new generation starts, and the states of the old one are asked again.
 */
const GENERATION_TTL_MS = 30 * 24 * 60 * 60_000;

const newGeneration = () => randomBytes(12).toString('base64url');

/**
 * The answers that authorise something (a confirmation: `onlyWhenAsked`) a 2026-07-28 retry
 * brought, each usable once: the retry's sealed state and the answer's key are claimed before
 * the answer counts, so the same retry sent again — to this replica or, with the `cluster`
 * option, to any — is asked again instead of acting twice. A claim lasts as long as the state it
 * is made on could be brought back.
 *
 * A claim is only as durable as the store that keeps it (this process's memory, or the cluster's
 * backplane), while a state sealed with a fixed `requestState.secret` outlives a restart. So the
 * claims have a **generation**: a random id made when their store starts empty — for each process
 * in memory; once per backplane, in a key set only if absent, which is gone again when the
 * backplane comes back empty (Redis restarted without persistence, or flushed). Every state is
 * sealed with the generation it was issued under, and an answer of a state of another generation
 * is never claimed: its retry is asked again, as a replay is. So no state outlives the claims
 * that keep it single-use. (Chosen over a second, durable claim table: claims stay where the
 * replicas' other shared state is, under the same fail-closed contract, and a persistent Redis
 * keeps both generation and claims across restarts; what a restart on an empty store costs is one
 * more question to the user of a round in flight.)
 *
 * While the backplane cannot be reached, no answer is claimed: the call fails closed with a
 * JSON-RPC error saying to retry shortly.
 */
@Injectable()
export class AnswerClaims implements OnApplicationBootstrap {
  private readonly local = new Map<string, number>();
  private nextSweep = 0;
  /** This process's generation (memory), or the one last read from the backplane. */
  private current = newGeneration();

  constructor(
    @Optional() private readonly cluster?: McpCluster,
    @Optional() @InjectProtocolOptions() private readonly options?: Pick<ProtocolOptions, 'requestState'>,
  ) {}

  /**
   * Learns the backplane's generation before states are sealed (at bootstrap: the cluster connects
   * at module init). Should that fail, the first claim learns it, and the states sealed meanwhile
   * are asked again once.
   */
  async onApplicationBootstrap(): Promise<void> {
    if (this.cluster?.enabled) await this.sharedGeneration().catch(() => undefined);
    else if (this.options?.requestState.secrets)
      new Logger('McpRequestState').log(
        'requestState.secret is set without the cluster option: a confirmation is claimed in this process only, so ' +
          'a retry that brings one to another replica is asked again there. Give the replicas a cluster backplane ' +
          'to resume confirmations on any of them.',
      );
  }

  /** The generation a state sealed now is issued under. */
  get generation(): string {
    return this.current;
  }

  /**
   * `true` when this is the first use of `id` (until `expiresAt`, ms since the epoch) by a state of
   * `generation`; `false` when it was used, or when the state is of another generation than the
   * claims now kept (they may have lost its use).
   * @throws when the cluster's shared store cannot be reached (the call fails closed)
   */
  async claim(id: string, expiresAt: number, generation: string | undefined): Promise<boolean> {
    const now = Date.now();
    const ttlMs = Math.max(1, expiresAt - now);
    if (this.cluster?.enabled) {
      const cluster = this.cluster;
      try {
        // Read before the claim: should the store be emptied after it, the next read starts another generation.
        if ((await this.sharedGeneration()) !== generation) return false;
        return await cluster.backplane.setIfAbsent(cluster.key('answer', id), 1, ttlMs);
      } catch {
        // A protocol error (as tasks answer), not a crash: the call is refused and may be sent again.
        throw new JsonRpcError(JsonRpcErrorCode.INTERNAL_ERROR, ClusterMessages.unavailable('confirmations used'));
      }
    }
    if (generation !== this.current) return false;
    if (now >= this.nextSweep) {
      this.nextSweep = now + SWEEP_EVERY_MS;
      for (const [claimed, until] of this.local) if (until <= now) this.local.delete(claimed);
    }
    const until = this.local.get(id);
    if (until !== undefined && until > now) return false;
    this.local.set(id, expiresAt);
    return true;
  }

  /** The backplane's generation: the one kept there, or a new one when it has none (it started empty). */
  private async sharedGeneration(): Promise<string | undefined> {
    const cluster = this.cluster!;
    const key = cluster.key('answers', 'generation');
    const mine = newGeneration();
    const found = (await cluster.backplane.setIfAbsent(key, mine, GENERATION_TTL_MS))
      ? mine
      : await cluster.backplane.get<string>(key);
    if (found !== undefined) this.current = found;
    return found;
  }
}
