import type { ExchangedToken } from './idp-token-exchange';

/** A token is renewed this long before it expires (or at half its life, when that is sooner). */
const RENEW_BEFORE_MS = 30_000;
/** The most tokens kept; past it, the expired ones go first, then the oldest. */
const MAX_ENTRIES = 10_000;

/**
 * Exchanged tokens per caller and audience, until shortly before they expire: a caller's calls
 * to one downstream cost one exchange per token lifetime, not one per call. Concurrent calls of
 * one caller share one exchange.
 */
export class ExchangedTokenCache {
  private readonly tokens = new Map<string, { token: ExchangedToken; renewAt: number }>();
  private readonly pending = new Map<string, Promise<ExchangedToken>>();

  constructor(private readonly now: () => number = Date.now) {}

  get(key: string, exchange: () => Promise<ExchangedToken>): Promise<ExchangedToken> {
    const kept = this.tokens.get(key);
    if (kept && this.now() < kept.renewAt) return Promise.resolve(kept.token);
    let pending = this.pending.get(key);
    if (!pending) {
      pending = exchange()
        .then((token) => {
          const lifetime = token.expiresIn * 1000;
          if (this.tokens.size >= MAX_ENTRIES) this.evict();
          this.tokens.set(key, { token, renewAt: this.now() + Math.max(lifetime - RENEW_BEFORE_MS, lifetime / 2) });
          return token;
        })
        .finally(() => this.pending.delete(key));
      this.pending.set(key, pending);
    }
    return pending;
  }

  /** Forgets a token the downstream refused. */
  forget(key: string): void {
    this.tokens.delete(key);
  }

  get size(): number {
    return this.tokens.size;
  }

  private evict(): void {
    const now = this.now();
    for (const [key, entry] of this.tokens) if (entry.renewAt <= now) this.tokens.delete(key);
    // Maps keep insertion order: the oldest go first.
    for (const key of this.tokens.keys()) {
      if (this.tokens.size < MAX_ENTRIES) break;
      this.tokens.delete(key);
    }
  }
}
