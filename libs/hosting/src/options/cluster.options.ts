import type { OptionReport } from '#libs/core';
import type { McpClusterBackplane } from '#libs/cluster';

export const CLUSTER_OPTION_KEYS = ['cluster'] as const;

const METHODS = [
  'subscribe',
  'close',
  'ping',
  'publish',
  'get',
  'set',
  'setIfAbsent',
  'take',
  'expire',
  'delete',
  'append',
  'readAfter',
  'indexAdd',
  'indexRemove',
  'indexMembers',
] as const;

/** The backplane the `cluster` option names, checked; `undefined` without one. */
export function resolveClusterBackplane(
  options: Record<string, unknown>,
  report: OptionReport,
): McpClusterBackplane | undefined {
  const cluster = options.cluster;
  if (cluster === undefined) return undefined;
  const example =
    "e.g. cluster: { backplane: new RedisClusterBackplane(process.env.REDIS_URL!) } (from 'nest-mcp-host/redis')";
  if (typeof cluster !== 'object' || cluster === null || Array.isArray(cluster)) {
    report('cluster', 'must be an object', example);
    return undefined;
  }
  const { backplane, ...rest } = cluster as Record<string, unknown>;
  for (const key of Object.keys(rest)) report(`cluster.${key}`, 'is not a known option', 'the only one is backplane');
  const missing = METHODS.filter(
    (method) => typeof (backplane as Record<string, unknown> | null)?.[method] !== 'function',
  );
  if (typeof backplane !== 'object' || backplane === null || missing.length > 0) {
    report(
      'cluster.backplane',
      backplane === undefined ? 'is required' : `is not a cluster backplane (no ${missing.join(', ')})`,
      example,
    );
    return undefined;
  }
  return backplane as McpClusterBackplane;
}
