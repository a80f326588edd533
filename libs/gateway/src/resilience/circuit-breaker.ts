/** `closed`: calls go through; `open`: refused at once; `half-open`: one probe call is let through. */
export type CircuitState = 'closed' | 'open' | 'half-open';

/**
 * A circuit breaker for one upstream: after `failureThreshold` failures in a row it opens, and
 * calls are refused at once (the caller gets a clear error instead of waiting on a dead server);
 * after `openMs` one call is let through as a probe, which closes the circuit if it succeeds or
 * opens it again if it fails. Only failures of the upstream count (unreachable, timed out, a
 * broken connection), not a tool's own error result.
 *
 * @example
 * ```ts
 * const breaker = new CircuitBreaker({ failureThreshold: 5, openMs: 30_000 });
 * if (!breaker.allow()) throw new McpToolError(`wiki is unavailable; retry in ${breaker.retryInMs()} ms`);
 * try { const result = await call(); breaker.succeeded(); return result; }
 * catch (error) { breaker.failed(); throw error; }
 * ```
 */
export class CircuitBreaker {
  private failures = 0;
  private openedAt = 0;
  private probing = false;
  private current: CircuitState = 'closed';

  constructor(
    private readonly options: { failureThreshold: number; openMs: number },
    private readonly now: () => number = Date.now,
  ) {}

  get state(): CircuitState {
    if (this.current === 'open' && this.now() - this.openedAt >= this.options.openMs) this.current = 'half-open';
    return this.current;
  }

  /** Failures in a row so far. */
  get consecutiveFailures(): number {
    return this.failures;
  }

  /** Whether a call may go now; in `half-open`, only the first caller (the probe) is let through. */
  allow(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.probing) return false;
    this.probing = true;
    return true;
  }

  /** How long until a probe may go (0 when it may now). */
  retryInMs(): number {
    if (this.current !== 'open') return 0;
    return Math.max(0, this.options.openMs - (this.now() - this.openedAt));
  }

  succeeded(): void {
    this.failures = 0;
    this.probing = false;
    this.current = 'closed';
  }

  failed(): void {
    this.failures++;
    const probeFailed = this.probing;
    this.probing = false;
    if (probeFailed || this.failures >= this.options.failureThreshold) {
      this.current = 'open';
      this.openedAt = this.now();
    }
  }
}
