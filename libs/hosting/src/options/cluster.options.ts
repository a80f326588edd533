import type { OptionReport } from '#libs/core';
import type { McpClusterBackplane } from '#libs/cluster';

/** The `cluster` option, resolved: the shared engine, and what names this replica's keys and messages. */
export interface ClusterSlice {
  /** `undefined`: one replica, everything in process memory. */
  readonly backplane: McpClusterBackplane | undefined;
  /** This replica's name (the `replica` option). */
  readonly replica: string;
  /** Keeps the keys and messages of several hosts on one engine apart (the server's name). */
  readonly namespace: string;
}

export const CLUSTER_OPTION_KEYS = ['cluster'] as const;

/** Every method of a backplane: the type makes a method added to the interface missing here a compile error. */
const METHODS = Object.keys({
  subscribe: true,
  close: true,
  ping: true,
  publish: true,
  get: true,
  set: true,
  setIfAbsent: true,
  take: true,
  expire: true,
  delete: true,
  append: true,
  readAfter: true,
  indexAdd: true,
  indexRemove: true,
  indexMembers: true,
} satisfies Record<keyof McpClusterBackplane, true>);

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
