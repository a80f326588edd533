import type { McpClusterBackplane, McpClusterEntry, McpClusterMessage } from '../backplane/cluster-backplane';

/**
 * A cluster backplane in one process's memory, for the specs of what is built on it (the e2e
 * specs use a real redis-server). Its steps are as atomic as Redis's; `down` makes every call
 * reject, as the Redis backplane's do while Redis cannot be reached.
 */
export class MapBackplane implements McpClusterBackplane {
  down = false;
  private readonly values = new Map<string, { text: string; expiresAt: number }>();
  private readonly indexes = new Map<string, Map<string, number>>();
  private readonly listeners = new Set<(message: McpClusterMessage) => void>();

  async subscribe(onMessage: (message: McpClusterMessage) => void): Promise<() => void> {
    this.listeners.add(onMessage);
    return () => this.listeners.delete(onMessage);
  }

  async close(): Promise<void> {}

  async ping(): Promise<void> {
    this.reachable();
  }

  async publish(message: McpClusterMessage): Promise<void> {
    this.reachable();
    const text = JSON.stringify(message);
    // Delivered later, as a message through Redis is.
    setImmediate(() => this.listeners.forEach((listener) => listener(JSON.parse(text) as McpClusterMessage)));
  }

  async get<T>(key: string): Promise<T | undefined> {
    this.reachable();
    const text = this.live(key);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  async set(key: string, value: unknown, ttlMs?: number): Promise<void> {
    this.reachable();
    this.write(key, JSON.stringify(value), ttlMs);
  }

  // Each step below is one synchronous check-and-change: atomic, as in Redis.

  async setIfAbsent(key: string, value: unknown, ttlMs: number): Promise<boolean> {
    this.reachable();
    if (this.live(key) !== undefined) return false;
    this.write(key, JSON.stringify(value), ttlMs);
    return true;
  }

  async take<T>(key: string): Promise<T | undefined> {
    this.reachable();
    const text = this.live(key);
    this.values.delete(key);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  async expire(key: string, ttlMs: number): Promise<boolean> {
    this.reachable();
    const text = this.live(key);
    if (text !== undefined) this.write(key, text, ttlMs);
    return text !== undefined;
  }

  async delete(key: string): Promise<void> {
    this.reachable();
    this.values.delete(key);
  }

  /** Counts the appends (the sequence, as Redis's `INCR`) without keeping the list: no spec reads one back. */
  async append(key: string, _value: string, _maxLength: number, ttlMs: number): Promise<number> {
    this.reachable();
    const seq = Number(this.live(`${key}:seq`) ?? 0) + 1;
    this.write(`${key}:seq`, String(seq), ttlMs);
    return seq;
  }

  async readAfter(): Promise<McpClusterEntry[]> {
    throw new Error('MapBackplane: lists are not needed by these specs');
  }

  async indexAdd(key: string, member: string, expiresAt: number): Promise<void> {
    this.reachable();
    const index = this.indexes.get(key) ?? new Map<string, number>();
    this.indexes.set(key, index.set(member, expiresAt));
  }

  async indexRemove(key: string, member: string): Promise<void> {
    this.reachable();
    this.indexes.get(key)?.delete(member);
  }

  async indexMembers(key: string, now: number): Promise<string[]> {
    this.reachable();
    return [...(this.indexes.get(key) ?? [])].filter(([, expiresAt]) => expiresAt >= now).map(([member]) => member);
  }

  /** Forgets every key and index, as Redis restarted without persistence (or `FLUSHALL`) does. */
  flush(): void {
    this.values.clear();
    this.indexes.clear();
  }

  private live(key: string): string | undefined {
    const value = this.values.get(key);
    return value && value.expiresAt > Date.now() ? value.text : undefined;
  }

  private write(key: string, text: string, ttlMs: number | undefined): void {
    this.values.set(key, { text, expiresAt: ttlMs === undefined ? Infinity : Date.now() + ttlMs });
  }

  private reachable(): void {
    if (this.down) throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
  }
}
