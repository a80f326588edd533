import type { McpClusterBackplane } from '#libs/cluster';

/**
 * The `cluster` option: replicas of the host behind a load balancer share their state through
 * `backplane`, so that any replica serves any request of a session.
 * @example
 * ```ts
 * import { RedisClusterBackplane } from 'nest-mcp-host/redis';
 * McpModule.forRoot({ name: 'desk', version: '1.0.0', cluster: { backplane: new RedisClusterBackplane(process.env.REDIS_URL!) } });
 * ```
 */
export interface McpClusterOptions {
  backplane: McpClusterBackplane;
}
