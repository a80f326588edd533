/** A message every replica of the cluster receives (`type` says what it is about). */
export interface McpClusterMessage {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** One entry of an appended list (`McpClusterBackplane.append`). */
export interface McpClusterEntry {
  /** Its place in the list, from 1, never reused. */
  readonly seq: number;
  readonly value: string;
}

/**
 * What the replicas of a host share: keys with an expiry, capped lists, an index of live ids,
 * and one channel every replica hears. The host builds sessions, event streams, tasks, approvals
 * and catalog changes on these; an engine built for this (Redis: `RedisClusterBackplane` from
 * `nest-mcp-host/redis`) implements them. Without one, each replica keeps all of it in memory.
 *
 * Every method rejects while the engine cannot be reached: callers fail closed with an error
 * that says so, and work again once it is back.
 */
export interface McpClusterBackplane {
  /**
   * Hands every message of the channel to `onMessage` from now on (connecting first, when this is
   * the first listener); resolves with how to stop. Several hosts in one application may share one
   * backplane: each gets every message and keeps its own.
   * @throws when the engine cannot be reached
   */
  subscribe(onMessage: (message: McpClusterMessage) => void): Promise<() => void>;
  /** Disconnects, once every user closed it (at shutdown). */
  close(): Promise<void>;
  /** Resolves when the engine answers. */
  ping(): Promise<void>;
  /** Sends `message` to every replica (this one included). */
  publish(message: McpClusterMessage): Promise<void>;

  /** The JSON value at `key`, or `undefined`. */
  get<T>(key: string): Promise<T | undefined>;
  /** Sets `key` to `value` (JSON), expiring after `ttlMs` when given. */
  set(key: string, value: unknown, ttlMs?: number): Promise<void>;
  /** Sets `key` only if it has no value; `true` when it was set (atomic across replicas). */
  setIfAbsent(key: string, value: unknown, ttlMs: number): Promise<boolean>;
  /** The value at `key`, deleted in the same step: of replicas taking it at once, one gets it. */
  take<T>(key: string): Promise<T | undefined>;
  /** Moves the expiry of `key` to `ttlMs` from now; `false` when it has no value. */
  expire(key: string, ttlMs: number): Promise<boolean>;
  delete(key: string): Promise<void>;

  /** Appends to the list at `key`, keeping its newest `maxLength` entries, the list expiring `ttlMs` after this. */
  append(key: string, value: string, maxLength: number, ttlMs: number): Promise<number>;
  /** The entries of the list at `key` after `afterSeq`, oldest first. */
  readAfter(key: string, afterSeq: number): Promise<McpClusterEntry[]>;

  /** Records `member` in the index at `key` until `expiresAt` (ms since the epoch). */
  indexAdd(key: string, member: string, expiresAt: number): Promise<void>;
  indexRemove(key: string, member: string): Promise<void>;
  /** The members of the index at `key` not expired at `now`. */
  indexMembers(key: string, now: number): Promise<string[]>;
}
