// `nest-mcp-host/redis`: throttling counters shared through Redis, apart from the root entry so
// that only the applications that use it load `ioredis` (an optional peer: `npm install ioredis`).
export { RedisThrottlerStorage } from './security/src/throttling/redis.storage';
// The state the replicas of a host share (sessions, event streams, tasks, approvals, catalog changes).
export { RedisClusterBackplane } from './cluster/src/backplane/redis-cluster.backplane';
