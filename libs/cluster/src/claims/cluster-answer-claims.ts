import { randomBytes } from 'node:crypto';
import type { OnApplicationBootstrap } from '@nestjs/common';
import { JsonRpcError, JsonRpcErrorCode } from '#libs/core';
import type { AnswerClaims } from '#libs/protocol';
import { ClusterMessages } from '../replicas/cluster.messages';
import type { McpCluster } from '../replicas/mcp-cluster';

/**
 * How long the cluster's generation key lives. Far longer than any state (10 min by default);
 * should it lapse, a new generation starts, and the states of the old one are asked again.
 */
const GENERATION_TTL_MS = 30 * 24 * 60 * 60_000;

const newGeneration = () => randomBytes(12).toString('base64url');

/**
 * The answer claims of a cluster (the `cluster` option): claimed on the backplane (`setIfAbsent`),
 * so that a retry sent again to any replica is asked again. One generation for every replica, in
 * a key set only if absent: a backplane that comes back empty starts another one, and the states
 * sealed before are asked again.
 *
 * While the backplane cannot be reached, no answer is claimed: the call fails closed with a
 * JSON-RPC error saying to retry shortly.
 */
export class ClusterAnswerClaims implements AnswerClaims, OnApplicationBootstrap {
  /** The generation last read from the backplane (this process's until then). */
  private current = newGeneration();

  constructor(private readonly cluster: McpCluster) {}

  /**
   * Learns the backplane's generation before states are sealed (at bootstrap: the cluster connects
   * at module init). Should that fail, the first claim learns it, and the states sealed meanwhile
   * are asked again once.
   */
  async onApplicationBootstrap(): Promise<void> {
    await this.sharedGeneration().catch(() => undefined);
  }

  get generation(): string {
    return this.current;
  }

  async claim(id: string, expiresAt: number, generation: string | undefined): Promise<boolean> {
    const ttlMs = Math.max(1, expiresAt - Date.now());
    try {
      // Read before the claim: should the store be emptied after it, the next read starts another generation.
      if ((await this.sharedGeneration()) !== generation) return false;
      return await this.cluster.backplane.setIfAbsent(this.cluster.key('answer', id), 1, ttlMs);
    } catch {
      // A protocol error (as tasks answer), not a crash: the call is refused and may be sent again.
      throw new JsonRpcError(JsonRpcErrorCode.INTERNAL_ERROR, ClusterMessages.unavailable('confirmations used'));
    }
  }

  /** The backplane's generation: the one kept there, or a new one when it has none (it started empty). */
  private async sharedGeneration(): Promise<string | undefined> {
    const key = this.cluster.key('answers', 'generation');
    const mine = newGeneration();
    const found = (await this.cluster.backplane.setIfAbsent(key, mine, GENERATION_TTL_MS))
      ? mine
      : await this.cluster.backplane.get<string>(key);
    if (found !== undefined) this.current = found;
    return found;
  }
}
