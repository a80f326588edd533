import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';

interface Window {
  hits: number;
  endsAt: number;
  blockedUntil: number;
}

/**
 * An in-memory `ThrottlerStorage` that counts hits in fixed windows: O(1) per call. The default
 * storage of `@nestjs/throttler` keeps one timestamp per hit and filters them on every call,
 * which costs more than the tool call itself once a principal makes thousands of calls per
 * window. For several replicas use a shared storage (e.g. Redis) instead.
 *
 * @example
 * ```ts
 * ThrottlerModule.forRoot({ throttlers: [{ ttl: 1_000, limit: 20 }], storage: new FixedWindowThrottlerStorage() })
 * ```
 */
@Injectable()
export class FixedWindowThrottlerStorage implements ThrottlerStorage, OnModuleDestroy {
  private readonly windows = new Map<string, Window>();
  private readonly sweeper = setInterval(() => this.sweep(), 10_000).unref();

  async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string) {
    const now = Date.now();
    const id = `${throttlerName}:${key}`;
    let window = this.windows.get(id);
    if (!window || (window.endsAt <= now && window.blockedUntil <= now)) {
      window = { hits: 0, endsAt: now + ttl, blockedUntil: 0 };
      this.windows.set(id, window);
    }
    const blocked = window.blockedUntil > now;
    if (!blocked) window.hits++;
    if (!blocked && window.hits > limit) window.blockedUntil = blockDuration > 0 ? now + blockDuration : window.endsAt;
    const isBlocked = window.blockedUntil > now;
    return {
      totalHits: window.hits,
      timeToExpire: Math.max(0, Math.ceil((window.endsAt - now) / 1000)),
      isBlocked,
      timeToBlockExpire: isBlocked ? Math.max(1, Math.ceil((window.blockedUntil - now) / 1000)) : 0,
    };
  }

  private sweep(now = Date.now()): void {
    for (const [id, window] of this.windows)
      if (window.endsAt <= now && window.blockedUntil <= now) this.windows.delete(id);
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
  }
}
