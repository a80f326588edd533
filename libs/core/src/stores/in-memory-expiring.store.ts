/** Entries past this many make a put sweep the expired ones first. */
const SWEEP_AT = 10_000;

/**
 * Strings under keys that expire, in this process's memory: the one-replica implementation of
 * the key-value stores features keep their state in (the authorization server's, the accounts
 * people connect); with the `cluster` option the cluster's replaces it.
 * @internal
 */
export class InMemoryExpiringStore {
  private readonly entries = new Map<string, { value: string; expiresAt: number }>();

  put(key: string, value: string, ttlMs: number): Promise<void> {
    if (this.entries.size >= SWEEP_AT) this.sweep();
    this.entries.set(key, { value, expiresAt: Date.now() + ttlMs });
    return Promise.resolve();
  }

  get(key: string): Promise<string | undefined> {
    return Promise.resolve(this.live(key));
  }

  /** The value, removed: only one taker gets it. */
  take(key: string): Promise<string | undefined> {
    const value = this.live(key);
    this.entries.delete(key);
    return Promise.resolve(value);
  }

  /** `true` for the first claim of `key` while it lives, `false` after. */
  async claim(key: string, ttlMs: number): Promise<boolean> {
    if (this.live(key) !== undefined) return false;
    await this.put(key, '1', ttlMs);
    return true;
  }

  delete(key: string): Promise<void> {
    this.entries.delete(key);
    return Promise.resolve();
  }

  /** The counter at `key` plus one; a new counter (1) lives `ttlMs`. */
  increment(key: string, ttlMs: number): Promise<number> {
    const current = this.live(key);
    if (current === undefined) {
      void this.put(key, '1', ttlMs);
      return Promise.resolve(1);
    }
    const next = Number(current) + 1;
    this.entries.get(key)!.value = String(next);
    return Promise.resolve(next);
  }

  /** How many live entries have a key that starts with `prefix`. */
  count(prefix: string): Promise<number> {
    let found = 0;
    for (const key of [...this.entries.keys()]) if (key.startsWith(prefix) && this.live(key) !== undefined) found++;
    return Promise.resolve(found);
  }

  /** The live entries whose key starts with `prefix`. */
  list(prefix: string): Promise<[string, string][]> {
    const found: [string, string][] = [];
    for (const key of [...this.entries.keys()]) {
      const value = key.startsWith(prefix) ? this.live(key) : undefined;
      if (value !== undefined) found.push([key, value]);
    }
    return Promise.resolve(found);
  }

  private live(key: string): string | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt > Date.now()) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }
}
