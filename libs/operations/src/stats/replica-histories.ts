import { Inject } from '@nestjs/common';
import type { McpHistorySnapshot } from './mcp-call-history';

/** Token of the host's `ReplicaHistories` (a piece of the shared state). */
export const MCP_REPLICA_HISTORIES = Symbol('MCP:REPLICA_HISTORIES');

/** Injects the host's `ReplicaHistories`. */
export const InjectReplicaHistories = (): ParameterDecorator => Inject(MCP_REPLICA_HISTORIES);

/** A replica's last hour of tool calls as it published it. */
export interface PublishedHistory {
  readonly replica: string;
  /** When it was published (ms since the epoch): the charts of another replica are this old. */
  readonly publishedAt: number;
  readonly history: McpHistorySnapshot;
}

/**
 * Where the replicas of a host leave their last hour of tool calls for one another, so that the
 * dashboard of any of them draws the charts of each (each replica counts its own calls). Each
 * publishes its own every refresh period of the dashboard; a replica that stops publishing drops
 * out after `ttlMs`.
 * @internal
 */
export interface ReplicaHistories {
  /** Whether there are other replicas to publish for (one replica: nothing is published). */
  readonly shared: boolean;
  publish(published: PublishedHistory, ttlMs: number): Promise<void>;
  /** The names of the replicas that published lately. */
  replicas(): Promise<string[]>;
  /** What `replica` published last, if it did lately. */
  get(replica: string): Promise<PublishedHistory | undefined>;
}

/** One replica: its own history is all there is, read where it is kept. */
export class LocalReplicaHistories implements ReplicaHistories {
  readonly shared = false;

  publish(): Promise<void> {
    return Promise.resolve();
  }

  replicas(): Promise<string[]> {
    return Promise.resolve([]);
  }

  get(): Promise<PublishedHistory | undefined> {
    return Promise.resolve(undefined);
  }
}
