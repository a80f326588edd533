import Redis, { type RedisOptions } from 'ioredis';
import type { McpClusterBackplane, McpClusterEntry, McpClusterMessage } from './cluster-backplane';

/** Appends to a capped list in one step: the entry's number, then the entry, then the expiries. */
const APPEND = `
local seq = redis.call('INCR', KEYS[2])
redis.call('RPUSH', KEYS[1], seq .. '\\n' .. ARGV[1])
redis.call('LTRIM', KEYS[1], -tonumber(ARGV[2]), -1)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return seq
`;

/** How often a connection that dropped is tried again, at most. */
const MAX_RETRY_DELAY_MS = 2_000;

/**
 * The cluster backplane on Redis: keys with `PX` expiries, `SET NX` and `GETDEL` for what one
 * replica only may do, capped lists for event streams, sorted sets for indexes of live ids, and
 * one pub/sub channel. While Redis cannot be reached every call rejects at once (no queue of
 * commands piling up): the host fails closed with an error that says so, and ioredis reconnects
 * (and re-subscribes) on its own when Redis is back.
 *
 * @example
 * ```ts
 * import { RedisClusterBackplane } from 'nest-mcp-host/redis';
 * McpModule.forRoot({ name: 'desk', version: '1.0.0', cluster: { backplane: new RedisClusterBackplane(process.env.REDIS_URL!) } });
 * ```
 */
export class RedisClusterBackplane implements McpClusterBackplane {
  private readonly redis: Redis;
  private subscriber: Redis | undefined;
  private readonly listeners = new Set<(message: McpClusterMessage) => void>();
  private users = 0;

  /**
   * @param url `redis://[:password@]host:6379[/db]` (`rediss://` for TLS)
   * @param channel the pub/sub channel the replicas talk on
   */
  constructor(
    url: string,
    private readonly channel = 'mcp:cluster',
  ) {
    const options: RedisOptions = {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      connectTimeout: 5_000,
      retryStrategy: (attempt) => Math.min(attempt * 200, MAX_RETRY_DELAY_MS),
    };
    this.redis = new Redis(url, options);
    // Errors reach the callers of the commands; the event would otherwise be logged by ioredis.
    this.redis.on('error', () => undefined);
  }

  async subscribe(onMessage: (message: McpClusterMessage) => void): Promise<() => void> {
    this.users++;
    if (this.redis.status === 'wait') await this.redis.connect();
    if (!this.subscriber) {
      const subscriber = this.redis.duplicate({ enableOfflineQueue: true });
      subscriber.on('error', () => undefined);
      subscriber.on('message', (_channel: string, text: string) => {
        let message: McpClusterMessage;
        try {
          message = JSON.parse(text) as McpClusterMessage;
        } catch {
          return;
        }
        for (const listener of this.listeners) listener(message);
      });
      this.subscriber = subscriber;
      await subscriber.subscribe(this.channel);
    }
    this.listeners.add(onMessage);
    return () => this.listeners.delete(onMessage);
  }

  async close(): Promise<void> {
    if (--this.users > 0) return;
    this.subscriber?.disconnect();
    this.subscriber = undefined;
    this.redis.disconnect();
  }

  async ping(): Promise<void> {
    await this.redis.ping();
  }

  async publish(message: McpClusterMessage): Promise<void> {
    await this.redis.publish(this.channel, JSON.stringify(message));
  }

  async get<T>(key: string): Promise<T | undefined> {
    const text = await this.redis.get(key);
    return text === null ? undefined : (JSON.parse(text) as T);
  }

  async set(key: string, value: unknown, ttlMs?: number): Promise<void> {
    if (ttlMs === undefined) await this.redis.set(key, JSON.stringify(value));
    else await this.redis.set(key, JSON.stringify(value), 'PX', ttlMs);
  }

  async setIfAbsent(key: string, value: unknown, ttlMs: number): Promise<boolean> {
    return (await this.redis.set(key, JSON.stringify(value), 'PX', ttlMs, 'NX')) === 'OK';
  }

  async take<T>(key: string): Promise<T | undefined> {
    const text = await this.redis.getdel(key);
    return text === null ? undefined : (JSON.parse(text) as T);
  }

  async expire(key: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.pexpire(key, ttlMs)) === 1;
  }

  async delete(key: string): Promise<void> {
    await this.redis.del(key);
  }

  async append(key: string, value: string, maxLength: number, ttlMs: number): Promise<number> {
    return (await this.redis.eval(APPEND, 2, key, `${key}:seq`, value, maxLength, ttlMs)) as number;
  }

  async readAfter(key: string, afterSeq: number): Promise<McpClusterEntry[]> {
    const entries: McpClusterEntry[] = [];
    for (const raw of await this.redis.lrange(key, 0, -1)) {
      const newline = raw.indexOf('\n');
      const seq = Number(raw.slice(0, newline));
      if (seq > afterSeq) entries.push({ seq, value: raw.slice(newline + 1) });
    }
    return entries;
  }

  async indexAdd(key: string, member: string, expiresAt: number): Promise<void> {
    await this.redis.multi().zadd(key, expiresAt, member).zremrangebyscore(key, '-inf', Date.now()).exec();
  }

  async indexRemove(key: string, member: string): Promise<void> {
    await this.redis.zrem(key, member);
  }

  async indexMembers(key: string, now: number): Promise<string[]> {
    return this.redis.zrangebyscore(key, now, '+inf');
  }
}
