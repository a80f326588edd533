import { randomBytes } from 'node:crypto';
import { Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { ProtocolOptions } from '../options/protocol.options';
import type { AnswerClaims } from './answer-claims';

/** How often the claims of this process are swept of expired ones, at most. */
const SWEEP_EVERY_MS = 60_000;

/**
 * The answer claims of one process, in its memory, under a generation of its own: a state sealed
 * by another process (or before a restart) is asked again.
 */
export class InMemoryAnswerClaims implements AnswerClaims, OnApplicationBootstrap {
  private readonly claimed = new Map<string, number>();
  private nextSweep = 0;
  readonly generation = randomBytes(12).toString('base64url');

  /** @param options whether the replicas share a `requestState.secret` (then a word is logged at start) */
  constructor(private readonly options?: Pick<ProtocolOptions, 'requestState'>) {}

  onApplicationBootstrap(): void {
    if (this.options?.requestState.secrets)
      new Logger('McpRequestState').log(
        'requestState.secret is set without the cluster option: a confirmation is claimed in this process only, so ' +
          'a retry that brings one to another replica is asked again there. Give the replicas a cluster backplane ' +
          'to resume confirmations on any of them.',
      );
  }

  async claim(id: string, expiresAt: number, generation: string | undefined): Promise<boolean> {
    if (generation !== this.generation) return false;
    const now = Date.now();
    if (now >= this.nextSweep) {
      this.nextSweep = now + SWEEP_EVERY_MS;
      for (const [claimed, until] of this.claimed) if (until <= now) this.claimed.delete(claimed);
    }
    const until = this.claimed.get(id);
    if (until !== undefined && until > now) return false;
    this.claimed.set(id, expiresAt);
    return true;
  }
}
