import type { AuthorizationServerStore } from './authorization-server.store';

/** Entries past this many make a put sweep the expired ones first. */
const SWEEP_AT = 10_000;

/** The authorization server's state in this process: one replica, or tests. */
export class InMemoryAuthorizationServerStore implements AuthorizationServerStore {
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

  async claim(key: string, ttlMs: number): Promise<boolean> {
    if (this.live(key) !== undefined) return false;
    await this.put(key, '1', ttlMs);
    return true;
  }

  delete(key: string): Promise<void> {
    this.entries.delete(key);
    return Promise.resolve();
  }

  list(prefix: string): Promise<[string, string][]> {
    const found: [string, string][] = [];
    for (const key of this.entries.keys()) {
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
