import type { UserConnectionStore } from './user-connection.store';

/** Entries past this many make a put sweep the expired ones first. */
const SWEEP_AT = 10_000;

/**
 * Connected accounts in this process: one replica, or tests. They are gone when it stops.
 * @example
 * { provide: MCP_USER_CONNECTION_STORE, useValue: new InMemoryUserConnectionStore() }
 */
export class InMemoryUserConnectionStore implements UserConnectionStore {
  private readonly entries = new Map<string, { value: string; expiresAt: number }>();

  put(key: string, value: string, ttlMs: number): Promise<void> {
    if (this.entries.size >= SWEEP_AT) this.sweep();
    this.entries.set(key, { value, expiresAt: Date.now() + ttlMs });
    return Promise.resolve();
  }

  get(key: string): Promise<string | undefined> {
    return Promise.resolve(this.live(key));
  }

  take(key: string): Promise<string | undefined> {
    const value = this.live(key);
    this.entries.delete(key);
    return Promise.resolve(value);
  }

  delete(key: string): Promise<void> {
    this.entries.delete(key);
    return Promise.resolve();
  }

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
