import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { InjectOperationsOptions, type OperationsOptions } from '../options/operations.options';
import { McpCallHistory, type McpHistorySnapshot } from '../stats/mcp-call-history';
import { InjectReplicaHistories, type ReplicaHistories } from '../stats/replica-histories';

/** How often a replica publishes its last hour for the others: the dashboard's refresh period. */
export const PUBLISH_MS = 5_000;
/** A replica that published nothing for this long is no longer offered (it stopped, or lost the backplane). */
const GONE_AFTER_MS = 3 * PUBLISH_MS;

/** What `GET <admin>/api/history` answers: one replica's last hour, and (clustered) which replicas there are. */
export type ReplicaChart = McpHistorySnapshot & {
  replica: string;
  /** When that replica published it (another replica's charts: up to a refresh period old). */
  publishedAt?: number;
  /** Every replica whose charts can be asked for (`?replica=`), this one included; absent on one replica. */
  replicas?: string[];
};

/**
 * The dashboard's charts per replica when clustered: each replica publishes its last hour of
 * tool calls (`McpCallHistory`) through the shared state every refresh period, and the admin API
 * of any replica answers the charts of each (`?replica=<name>`) and the list of them. On one
 * replica nothing is published and the charts are its own.
 */
@Injectable()
export class ReplicaCharts implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('McpAdmin');
  private timer: NodeJS.Timeout | undefined;
  private warned = false;

  constructor(
    @InjectOperationsOptions() private readonly options: OperationsOptions,
    private readonly history: McpCallHistory,
    @InjectReplicaHistories() private readonly histories: ReplicaHistories,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.options.admin || !this.options.http || !this.histories.shared) return;
    this.publish();
    this.timer = setInterval(() => this.publish(), PUBLISH_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  /** The charts of `replica` (this one when absent), or `undefined` when no such replica published lately. */
  async chart(replica?: string): Promise<ReplicaChart | undefined> {
    const own = this.options.replica;
    const replicas = this.histories.shared
      ? [...new Set([own, ...(await this.histories.replicas())])].sort()
      : undefined;
    if (replica === undefined || replica === own)
      return { replica: own, ...this.history.snapshot(), ...(replicas && { replicas }) };
    const published = await this.histories.get(replica);
    if (!published) return undefined;
    return { replica, publishedAt: published.publishedAt, ...published.history, ...(replicas && { replicas }) };
  }

  private publish(): void {
    this.histories
      .publish(
        { replica: this.options.replica, publishedAt: Date.now(), history: this.history.snapshot() },
        GONE_AFTER_MS,
      )
      .then(
        () => (this.warned = false),
        (error: Error) => {
          if (!this.warned) this.logger.warn(`The charts of this replica were not published: ${error.message}`);
          this.warned = true;
        },
      );
  }
}
