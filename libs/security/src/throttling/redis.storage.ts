import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import Redis from 'ioredis';

/**
 * Fixed-window counting in one round trip: the hit counter expires with its window, and a
 * separate key marks a block that outlives it when `blockDuration` says so.
 * Returns [hits, window ms left, blocked (0/1), block ms left].
 */
const INCREMENT = `
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local windowLeft = redis.call('PTTL', KEYS[1])
local blockLeft = redis.call('PTTL', KEYS[2])
if blockLeft > 0 then return {hits, windowLeft, 1, blockLeft} end
if hits > tonumber(ARGV[2]) then
  local duration = tonumber(ARGV[3])
  if duration <= 0 then duration = windowLeft end
  redis.call('SET', KEYS[2], '1', 'PX', duration)
  return {hits, windowLeft, 1, duration}
end
return {hits, windowLeft, 0, 0}
`;

/**
 * A `ThrottlerStorage` on Redis, so that every replica of the host counts against the same
 * limits (fixed windows, atomic per call).
 *
 * @example
 * ```ts
 * ThrottlerModule.forRoot({ throttlers: [{ ttl: 60_000, limit: 120 }], storage: new RedisThrottlerStorage(process.env.REDIS_URL!) })
 * ```
 */
@Injectable()
export class RedisThrottlerStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly redis: Redis;

  constructor(
    urlOrClient: string | Redis,
    private readonly prefix = 'mcp:throttle:',
  ) {
    this.redis =
      typeof urlOrClient === 'string'
        ? new Redis(urlOrClient, { maxRetriesPerRequest: 2, lazyConnect: false })
        : urlOrClient;
  }

  async increment(key: string, ttl: number, limit: number, blockDuration: number, throttlerName: string) {
    const base = `${this.prefix}${throttlerName}:${key}`;
    const [hits, windowLeft, blocked, blockLeft] = (await this.redis.eval(
      INCREMENT,
      2,
      base,
      `${base}:blocked`,
      ttl,
      limit,
      blockDuration,
    )) as number[];
    return {
      totalHits: hits,
      timeToExpire: Math.max(0, Math.ceil(windowLeft / 1000)),
      isBlocked: blocked === 1,
      timeToBlockExpire: blocked === 1 ? Math.max(1, Math.ceil(blockLeft / 1000)) : 0,
    };
  }

  /** Resolves when Redis answers (for readiness checks). */
  async ping(): Promise<void> {
    await this.redis.ping();
  }

  /** After the drain (Nest runs `onModuleDestroy` before it): the calls in flight still need this. */
  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}
