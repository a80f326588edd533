import { hostname } from 'node:os';
import type { OptionReport } from '#libs/core';

/** The longest replica name: it is a label value on every metric and sits in the dashboard's header. */
export const MAX_REPLICA_NAME_LENGTH = 64;

// Characters that need no escaping in a Prometheus label value, a log line or a URL.
const REPLICA_NAME = /^[A-Za-z0-9._:-]+$/;
const NOT_IN_REPLICA_NAME = /[^A-Za-z0-9._:-]+/g;

/** How to fix a bad `replica`, shared by its checks. */
const REPLICA_FIX =
  "use letters, digits, '.', '_', ':' and '-' only, e.g. replica: process.env.POD_NAME or 'desk-eu-1', " +
  'or leave it out for <host name>-<pid>';

/**
 * The name of this process when the `replica` option is left out: `<host name>-<pid>`, unique
 * for several processes on one machine (in Kubernetes the host name is the pod's name). Other
 * characters of the host name become `-`, and a long host name is cut, keeping the pid, so the
 * default always passes the option's own checks.
 *
 * @example
 * ```ts
 * defaultReplicaName('desk-7f9c4-x2x9z', 1); // 'desk-7f9c4-x2x9z-1'
 * defaultReplicaName("Ada's laptop", 4242); // 'Ada-s-laptop-4242'
 * ```
 */
export function defaultReplicaName(host: string = hostname(), pid: number = process.pid): string {
  const suffix = `-${pid}`;
  const name = host.replace(NOT_IN_REPLICA_NAME, '-').slice(0, MAX_REPLICA_NAME_LENGTH - suffix.length);
  return `${name || 'host'}${suffix}`;
}

/**
 * Validates the `replica` option (the name of this replica in metrics, readiness and the admin
 * dashboard) and falls back to `defaultReplicaName()` when it is left out.
 *
 * @param report called once per problem, with how to fix it
 * @example
 * ```ts
 * resolveReplicaName('desk-eu-1', report); // 'desk-eu-1'
 * resolveReplicaName(undefined, report); // e.g. 'desk-7f9c4-x2x9z-1'
 * ```
 */
export function resolveReplicaName(value: unknown, report: OptionReport): string {
  if (value === undefined) return defaultReplicaName();
  if (typeof value !== 'string' || value === '') {
    report('replica', `must be a non-empty string, got ${JSON.stringify(value)}`, REPLICA_FIX);
  } else if (value.length > MAX_REPLICA_NAME_LENGTH) {
    report(
      'replica',
      `is ${value.length} characters long, more than ${MAX_REPLICA_NAME_LENGTH}`,
      `shorten it to ${MAX_REPLICA_NAME_LENGTH} characters or fewer, e.g. replica: 'desk-eu-1'`,
    );
  } else if (!REPLICA_NAME.test(value)) {
    report(
      'replica',
      `${JSON.stringify(value)} has characters other than letters, digits, '.', '_', ':' and '-'`,
      REPLICA_FIX,
    );
  } else {
    return value;
  }
  // Start-up fails on the report; the other options are still checked, with a valid name meanwhile.
  return defaultReplicaName();
}
