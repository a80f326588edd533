import { Injectable, Optional } from '@nestjs/common';
import { McpCluster } from '#libs/core';

/** How often the claims of this process are swept of expired ones, at most. */
const SWEEP_EVERY_MS = 60_000;

/**
 * The answers that authorise something (a confirmation: `onlyWhenAsked`) a 2026-07-28 retry
 * brought, each usable once: the retry's sealed state and the answer's key are claimed before
 * the answer counts, so the same retry sent again — to this replica or, with the `cluster`
 * option, to any — is asked again instead of acting twice. A claim lasts as long as the state it
 * is made on could be brought back.
 */
@Injectable()
export class AnswerClaims {
  private readonly local = new Map<string, number>();
  private nextSweep = 0;

  constructor(@Optional() private readonly cluster?: McpCluster) {}

  /**
   * `true` when this is the first use of `id` (until `expiresAt`, ms since the epoch).
   * @throws when the cluster's shared store cannot be reached (the call fails closed)
   */
  async claim(id: string, expiresAt: number): Promise<boolean> {
    const now = Date.now();
    const ttlMs = Math.max(1, expiresAt - now);
    if (this.cluster?.enabled) return this.cluster.backplane.setIfAbsent(this.cluster.key('answer', id), 1, ttlMs);
    if (now >= this.nextSweep) {
      this.nextSweep = now + SWEEP_EVERY_MS;
      for (const [claimed, until] of this.local) if (until <= now) this.local.delete(claimed);
    }
    const until = this.local.get(id);
    if (until !== undefined && until > now) return false;
    this.local.set(id, expiresAt);
    return true;
  }
}
