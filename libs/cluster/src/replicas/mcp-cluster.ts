import { Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { McpStartupError } from '#libs/core';
import type { McpClusterBackplane, McpClusterMessage } from '../backplane/cluster-backplane';
import { ClusterMessages } from './cluster.messages';

/** What the hosting module gives the cluster layer (with the `cluster` option). */
export interface ClusterOptions {
  /** The shared engine. */
  readonly backplane: McpClusterBackplane;
  /** This replica's name (the `replica` option). */
  readonly replica: string;
  /** Keeps the keys and messages of several hosts on one engine apart (the server's name). */
  readonly namespace: string;
}

/** How often a replica says it is alive, and how long the word lasts. */
const HEARTBEAT_MS = 5_000;
const ALIVE_TTL_MS = 15_000;

type Handler = (message: McpClusterMessage) => void;

/**
 * The replicas of one host, seen from one of them: who this replica is, the state they share
 * (`backplane`, under this host's keys) and the messages they send each other (`broadcast`,
 * handled by type with `on`). A replica says it is alive every 5 s, so that the others can tell
 * when it has gone (`isAlive`): the tasks it ran are then failed, not left working.
 *
 * Made only with the `cluster` option (by `ClusterState`): without one the host is one replica,
 * and no file of this library is loaded.
 */
export class McpCluster implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('McpCluster');
  private readonly handlers = new Map<string, Set<Handler>>();
  private unsubscribe: (() => void) | undefined;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(private readonly options: ClusterOptions) {}

  /** This replica's name (the `replica` option). */
  get replica(): string {
    return this.options.replica;
  }

  /** The shared engine. */
  get backplane(): McpClusterBackplane {
    return this.options.backplane;
  }

  /** The engine key of `parts`, under this host's namespace (`mcp:<host>:session:<id>`). */
  key(...parts: string[]): string {
    return `mcp:${this.options.namespace}:${parts.join(':')}`;
  }

  /** Calls `handler` with every message of `type` another replica (or this one) broadcasts; returns how to stop. */
  on(type: string, handler: Handler): () => void {
    let set = this.handlers.get(type);
    if (!set) this.handlers.set(type, (set = new Set()));
    set.add(handler);
    return () => set.delete(handler);
  }

  /** Sends `message` to every replica of this host; `from` names this one. */
  async broadcast(message: McpClusterMessage): Promise<void> {
    await this.backplane.publish({ ...message, ns: this.options.namespace, from: this.replica });
  }

  /**
   * Whether a replica said it was alive within the last 15 s. When this replica's own word is
   * missing too, the shared store lost its keys (a restart without persistence): nobody can be
   * judged gone until the replicas have spoken again, so the answer is yes.
   */
  async isAlive(replica: string): Promise<boolean> {
    if (replica === this.replica) return true;
    if ((await this.backplane.get(this.key('replica', replica))) !== undefined) return true;
    if ((await this.backplane.get(this.key('replica', this.replica))) !== undefined) return false;
    await this.sayAlive();
    return true;
  }

  async onModuleInit(): Promise<void> {
    const backplane = this.options.backplane;
    try {
      this.unsubscribe = await backplane.subscribe((message) => this.deliver(message));
      await this.sayAlive();
    } catch (error) {
      throw new McpStartupError([
        {
          where: 'cluster.backplane',
          problem: ClusterMessages.connectFailed((error as Error).message),
          fix: 'start the server, or fix its address',
        },
      ]);
    }
    this.heartbeat = setInterval(() => {
      this.sayAlive().catch((error: Error) => this.logger.warn(`cannot say this replica is alive: ${error.message}`));
    }, HEARTBEAT_MS).unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.heartbeat);
    const backplane = this.options.backplane;
    this.unsubscribe?.();
    await backplane.delete(this.key('replica', this.replica)).catch(() => undefined);
    await backplane.close();
  }

  private sayAlive(): Promise<void> {
    return this.backplane.set(this.key('replica', this.replica), { at: Date.now() }, ALIVE_TTL_MS);
  }

  private deliver(message: McpClusterMessage): void {
    if (message.ns !== this.options.namespace) return;
    for (const handler of this.handlers.get(message.type) ?? []) {
      try {
        handler(message);
      } catch (error) {
        this.logger.error(`handling ${message.type} failed: ${(error as Error).message}`);
      }
    }
  }
}
