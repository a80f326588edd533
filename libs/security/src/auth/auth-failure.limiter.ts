/**
 * Counts failed authentications per client address in fixed windows, so that guessing API keys
 * or replaying stolen tokens is slowed down: past the limit every request from that address is
 * refused with 429 and `Retry-After` until the window ends. One instance serves every protected
 * surface (the MCP endpoint, the admin API, /metrics), so an address gets `limit` guesses in all.
 */
export class AuthFailureLimiter {
  private readonly windows = new Map<string, { failures: number; endsAt: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  /** Seconds until `address` may try again, or 0 when it may now. */
  retryAfter(address: string, now = Date.now()): number {
    const window = this.windows.get(address);
    if (!window || window.endsAt <= now) return 0;
    return window.failures >= this.limit ? Math.ceil((window.endsAt - now) / 1000) : 0;
  }

  fail(address: string, now = Date.now()): void {
    let window = this.windows.get(address);
    if (!window || window.endsAt <= now) {
      if (this.windows.size > 10_000) this.prune(now);
      window = { failures: 0, endsAt: now + this.windowMs };
      this.windows.set(address, window);
    }
    window.failures++;
  }

  private prune(now: number): void {
    for (const [address, window] of this.windows) if (window.endsAt <= now) this.windows.delete(address);
  }
}
