import { Inject } from '@nestjs/common';
import { URL_PATH, type OptionReport } from '#libs/core';
import type { McpHealthCheck } from './health-check.interface';
import { resolveApprovalPolicy, type ApprovalPolicy } from './approval-policy';
import { resolveReplicaName } from './replica-name';

/** What operations (health, metrics, admin dashboard, approvals) need of the module's options. */
export interface OperationsOptions {
  /** Whether the host serves HTTP at all (the dashboard and `/metrics` live on it). */
  http: boolean;
  /** This replica's name: the `replica` label of every metric, in readiness and on the dashboard. */
  replica: string;
  healthChecks: McpHealthCheck[];
  /** `undefined`: no admin dashboard. */
  admin: { path: string; statsWindowMs: number } | undefined;
  /** `undefined`: no metrics (turned off, or no HTTP server and no `port`). `port` set: served on a listener of its own at `host:port`, not on the main server. */
  metrics: { path: string; port: number | undefined; host: string; token: string | undefined } | undefined;
  approvals: ApprovalPolicy;
}

export type { ApprovalPolicy } from './approval-policy';

/** Token of the resolved `OperationsOptions`. */
export const MCP_OPERATIONS_OPTIONS = Symbol('MCP:OPERATIONS_OPTIONS');

/** Injects the `OperationsOptions`. */
export const InjectOperationsOptions = (): ParameterDecorator => Inject(MCP_OPERATIONS_OPTIONS);

/** The options of `McpModule` this slice reads. */
export const OPERATIONS_OPTION_KEYS = ['replica', 'healthChecks', 'admin', 'metrics', 'approvals'] as const;

/** What the operations options are checked against. */
export interface OperationsContext {
  http: boolean;
  /** Whether the host serves stdio (without HTTP it has no dashboard: approvals get a page of their own). */
  stdio: boolean;
  /** The MCP endpoint's path (the dashboard and metrics need paths of their own). */
  mcpPath: string;
  /** `none`: metrics answer loopback callers only (or a token). */
  authMode: string;
}

/**
 * Validates the operations options and merges their defaults.
 * @param report called once per problem, with how to fix it
 */
export function resolveOperationsOptions(
  o: Record<string, unknown>,
  context: OperationsContext,
  report: OptionReport,
): OperationsOptions {
  const replica = resolveReplicaName(o.replica, report);
  const healthChecks = o.healthChecks ?? [];
  if (
    !Array.isArray(healthChecks) ||
    healthChecks.some((check) => typeof check?.name !== 'string' || !check.name || typeof check.check !== 'function')
  ) {
    report(
      'healthChecks',
      'must be an array of { name, check } with a non-empty name and a check function',
      "e.g. healthChecks: [{ name: 'redis', check: () => redis.ping() }]",
    );
  }
  const admin = resolveAdminOptions(o.admin, context.mcpPath, report);
  return {
    http: context.http,
    replica,
    healthChecks: Array.isArray(healthChecks) ? (healthChecks as McpHealthCheck[]) : [],
    admin,
    metrics: resolveMetricsOptions(o.metrics, { ...context, adminPath: admin?.path }, report),
    approvals: resolveApprovalPolicy(o.approvals, context, report),
  };
}

const ADMIN_KEYS = new Set(['path', 'statsWindowMinutes']);

/** The admin dashboard: on by default at `/admin` with a 5-minute window; `false` turns it off. */
function resolveAdminOptions(value: unknown, mcpPath: string, report: OptionReport): OperationsOptions['admin'] {
  if (value === false) return undefined;
  if (value !== undefined && value !== true && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    report(
      'admin',
      `must be false or an object, got ${JSON.stringify(value)}`,
      "e.g. admin: { path: '/admin', statsWindowMinutes: 5 }, or admin: false to turn the dashboard off",
    );
    return undefined;
  }
  const admin = (typeof value === 'object' ? value : {}) as Record<string, unknown>;
  for (const key of Object.keys(admin)) {
    if (!ADMIN_KEYS.has(key))
      report(`admin.${key}`, 'is not a known option', 'remove it; admin takes path and statsWindowMinutes');
  }
  const path = admin.path ?? '/admin';
  if (typeof path !== 'string' || !URL_PATH.test(path) || path === '/' || path.endsWith('/')) {
    report(
      'admin.path',
      `"${String(path)}" is not an absolute URL path`,
      "use a path like '/admin' (leading slash, no trailing slash, not the root)",
    );
  } else if (path === mcpPath) {
    report(
      'admin.path',
      `"${path}" is the path of the MCP endpoint`,
      "give the dashboard a path of its own, e.g. '/admin'",
    );
  }
  const minutes = admin.statsWindowMinutes ?? 5;
  if (typeof minutes !== 'number' || !Number.isInteger(minutes) || minutes < 1 || minutes > 1_440) {
    report(
      'admin.statsWindowMinutes',
      `must be an integer from 1 to 1440, got ${JSON.stringify(minutes)}`,
      'set statsWindowMinutes: 5 (the default) or another number of minutes up to a day',
    );
  }
  return { path: path as string, statsWindowMs: (minutes as number) * 60_000 };
}

const METRICS_KEYS = new Set(['path', 'port', 'host', 'token']);
/** A metrics token shorter than this is too easy to guess. */
const MIN_METRICS_TOKEN = 16;

/**
 * Prometheus metrics: on by default at `/metrics` on the main HTTP server; `false` turns them off,
 * and so does a host without HTTP unless `port` gives them a listener of their own.
 */
function resolveMetricsOptions(
  value: unknown,
  context: OperationsContext & { adminPath: string | undefined },
  report: OptionReport,
): OperationsOptions['metrics'] {
  if (value === false) return undefined;
  if (value !== undefined && value !== true && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    report(
      'metrics',
      `must be true, false or an object, got ${JSON.stringify(value)}`,
      "e.g. metrics: { path: '/metrics' }, metrics: { port: 9464 }, or metrics: false to turn them off",
    );
    return undefined;
  }
  const metrics = (typeof value === 'object' ? value : {}) as Record<string, unknown>;
  for (const key of Object.keys(metrics)) {
    if (!METRICS_KEYS.has(key))
      report(`metrics.${key}`, 'is not a known option', 'remove it; metrics takes path, port, host and token');
  }
  const path = metrics.path ?? '/metrics';
  const port = metrics.port;
  if (typeof path !== 'string' || !URL_PATH.test(path) || path === '/' || path.endsWith('/')) {
    report(
      'metrics.path',
      `"${String(path)}" is not an absolute URL path`,
      "use a path like '/metrics' (leading slash, no trailing slash, not the root)",
    );
  } else if (port === undefined && (path === context.mcpPath || path === context.adminPath)) {
    report(
      'metrics.path',
      `"${path}" is the path of the ${path === context.mcpPath ? 'MCP endpoint' : 'admin dashboard'}`,
      "give the metrics a path of their own, e.g. '/metrics'",
    );
  }
  if (port !== undefined && (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65_535)) {
    report(
      'metrics.port',
      `must be an integer from 1 to 65535, got ${JSON.stringify(port)}`,
      'e.g. metrics: { port: 9464 }, or leave port out to serve /metrics on the main HTTP server',
    );
  }
  const host = metrics.host ?? '127.0.0.1';
  if (typeof host !== 'string' || !host.trim()) {
    report(
      'metrics.host',
      `must be a non-empty string, got ${JSON.stringify(host)}`,
      "e.g. host: '127.0.0.1' (the default) or '0.0.0.0'",
    );
  } else if (metrics.host !== undefined && port === undefined) {
    report(
      'metrics.host',
      'only applies to the listener of its own (metrics.port)',
      'set metrics.port too, or leave host out to serve /metrics on the main HTTP server',
    );
  }
  const token = metrics.token;
  if (token !== undefined && (typeof token !== 'string' || token.length < MIN_METRICS_TOKEN || /\s/.test(token))) {
    report(
      'metrics.token',
      `must be a string of at least ${MIN_METRICS_TOKEN} characters without spaces`,
      'generate one, e.g. `openssl rand -hex 24`, and pass it from the environment: token: process.env.METRICS_TOKEN',
    );
  }
  if (
    context.authMode === 'none' &&
    token === undefined &&
    port !== undefined &&
    typeof host === 'string' &&
    !isLoopbackHost(host)
  ) {
    report(
      'metrics.host',
      `authentication is off ('none'), so metrics answer loopback callers only, but the listener would be on ${host}`,
      "keep host '127.0.0.1', or set metrics.token for scrapers from elsewhere (or configure auth)",
    );
  }
  // Without HTTP and without a port of their own there is nowhere to serve them: nothing is counted
  // (and prom-client is not loaded), as with `metrics: false`.
  if (!context.http && port === undefined) return undefined;
  return {
    path: path as string,
    port: port as number | undefined,
    host: host as string,
    token: token as string | undefined,
  };
}

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
