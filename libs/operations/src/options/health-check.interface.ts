/**
 * A backing service the host needs (Redis, a database, …), checked by `/health/ready` and shown
 * on the admin dashboard.
 *
 * @example
 * ```ts
 * McpModule.forRoot({ ..., healthChecks: [{ name: 'redis', check: () => redis.ping() }] })
 * ```
 */
export interface McpHealthCheck {
  /** Shown in the readiness report, e.g. `redis`. */
  name: string;
  /** Resolves when the dependency works, rejects (or throws) when it does not; a returned object is shown as details. */
  check: () => unknown;
  /** A required dependency that is down makes readiness answer 503; an optional one only reports `degraded`. @default true */
  required?: boolean;
  /** A check taking longer counts as down (ms). @default 2_000 */
  timeoutMs?: number;
}
