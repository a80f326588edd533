// `nest-mcp-host/redis`: throttling counters shared through Redis, apart from the root entry so
// that only the applications that use it load `ioredis` (an optional peer: `npm install ioredis`).
export { RedisThrottlerStorage } from './security/src/throttling/redis.storage';
