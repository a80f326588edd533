import { McpStartupError, type McpDiagnostic } from '#libs/core';
import { ANONYMOUS, checkAuthOptions, resolveAuditOptions } from '#libs/security';
import { DEFAULT_REQUEST_LIMITS, type RequestLimits } from '#libs/protocol';
import type { McpModuleOptions } from '../interfaces/mcp-module-options.interface';
import type { ResolvedApprovalOptions, ResolvedMcpOptions } from '#libs/protocol';

const DEFAULT_HOSTS = ['localhost', '127.0.0.1', '[::1]'];
const KNOWN_OPTIONS = new Set<string>([
  'name', 'version', 'title', 'instructions', 'path', 'mode', 'sessionIdleTtlMs', 'maxSessions', 'maxSessionsPerPrincipal', 'maxSubscriptionsPerSession',
  'allowedOrigins', 'allowedHosts', 'bodyLimit', 'http', 'stdio', 'routeThroughExpress', 'pageSize',
  'shutdownTimeoutMs', 'confirmDestructive', 'approvals', 'taskTtlMs', 'auth', 'stdioPrincipal', 'toolTimeoutMs', 'unknownArguments', 'limits', 'redact', 'authFailureLimit', 'cors', 'audit', 'healthChecks', 'admin', 'metrics',
]);
const SIZE = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?$/i;
const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/**
 * Validates `McpModule` options and merges the defaults. Every problem is reported at once,
 * each with how to fix it.
 * @throws McpStartupError
 */
export function resolveMcpOptions(options: McpModuleOptions): ResolvedMcpOptions {
  const problems: McpDiagnostic[] = [];
  const report = (option: string, problem: string, fix: string) => problems.push({ where: `McpModule option "${option}"`, problem, fix });
  const o = (options ?? {}) as McpModuleOptions & Record<string, unknown>;

  for (const key of Object.keys(o)) {
    if (!KNOWN_OPTIONS.has(key)) report(key, 'is not a known option', `remove it; known options are: ${[...KNOWN_OPTIONS].join(', ')}`);
  }
  const text = (key: 'name' | 'version', example: string) => {
    if (typeof o[key] !== 'string' || !o[key].trim()) report(key, 'is required and must be a non-empty string', `set it, e.g. ${key}: '${example}'`);
  };
  text('name', 'support-desk');
  text('version', '1.0.0');
  for (const key of ['title', 'instructions'] as const) {
    if (o[key] !== undefined && typeof o[key] !== 'string') report(key, 'must be a string', `give a string or leave ${key} out`);
  }
  const path = o.path ?? '/mcp';
  if (typeof path !== 'string' || !/^\/[A-Za-z0-9/_.~-]*$/.test(path) || path.length > 1 && path.endsWith('/')) {
    report('path', `"${String(path)}" is not an absolute URL path`, "use a path like '/mcp' (leading slash, no trailing slash, no query)");
  }
  const mode = o.mode ?? 'stateful';
  if (mode !== 'stateful' && mode !== 'stateless') report('mode', `"${String(mode)}" is not a mode`, "use 'stateful' or 'stateless'");
  const integer = (key: keyof McpModuleOptions, fallback: number, min: number) => {
    const value = o[key] ?? fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
      report(key, `must be an integer ≥ ${min}, got ${JSON.stringify(value)}`, `set ${key}: ${fallback} (the default) or another integer ≥ ${min}`);
    }
    return value as number;
  };
  const sessionIdleTtlMs = integer('sessionIdleTtlMs', 30 * 60_000, 1_000);
  const maxSessions = integer('maxSessions', 10_000, 1);
  const maxSessionsPerPrincipal = integer('maxSessionsPerPrincipal', 100, 1);
  const maxSubscriptionsPerSession = integer('maxSubscriptionsPerSession', 100, 1);
  const pageSize = integer('pageSize', 100, 1);
  const shutdownTimeoutMs = integer('shutdownTimeoutMs', 10_000, 0);
  const taskTtlMs = integer('taskTtlMs', 3_600_000, 1_000);
  const toolTimeoutMs = integer('toolTimeoutMs', 30_000, 1);
  const stringList = (key: 'allowedOrigins' | 'allowedHosts') => {
    const value = o[key];
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || !item)) {
      report(key, 'must be an array of non-empty strings', `e.g. ${key}: ${key === 'allowedHosts' ? "['mcp.example.com']" : "['https://app.example.com']"}`);
      return undefined;
    }
    return value as string[];
  };
  const origins = stringList('allowedOrigins');
  origins?.forEach((origin) => {
    if (!/^https?:\/\/[^/]+$/.test(origin)) report('allowedOrigins', `"${origin}" is not an origin`, "write scheme://host[:port] with no path, e.g. 'https://app.example.com'");
  });
  const hosts = stringList('allowedHosts');
  const bodyLimit = parseSize(o.bodyLimit ?? '1mb');
  if (bodyLimit === undefined) report('bodyLimit', `${JSON.stringify(o.bodyLimit)} is not a size`, "give bytes (1048576) or a string like '512kb' or '4mb'");
  const flag = (key: 'http' | 'stdio' | 'routeThroughExpress' | 'confirmDestructive', fallback: boolean) => {
    const value = o[key] ?? fallback;
    if (typeof value !== 'boolean') report(key, 'must be true or false', `set ${key}: ${fallback}`);
    return value === true;
  };
  const http = flag('http', true);
  const stdio = flag('stdio', false);
  const routeThroughExpress = flag('routeThroughExpress', false);
  const confirmDestructive = flag('confirmDestructive', false);

  const unknownArguments = o.unknownArguments ?? 'refuse';
  if (unknownArguments !== 'refuse' && unknownArguments !== 'strip' && unknownArguments !== 'allow') {
    report('unknownArguments', `${JSON.stringify(unknownArguments)} is not a policy`, "use 'refuse' (the default), 'strip' or 'allow'");
  }
  const approvals = resolveApprovalOptions(o.approvals, (o.auth?.mode ?? 'none') === 'none', report);
  problems.push(...checkAuthOptions(o.auth));
  for (const pattern of o.redact?.patterns ?? []) {
    try {
      if (typeof pattern === 'string') new RegExp(pattern);
    } catch (error) {
      report('redact.patterns', `"${pattern}" is not a regular expression: ${(error as Error).message}`, 'escape it, or pass a RegExp literal');
    }
  }
  const authFailureLimit = o.authFailureLimit;
  if (authFailureLimit !== undefined && (!Number.isInteger(authFailureLimit?.limit) || authFailureLimit.limit < 1 || !Number.isInteger(authFailureLimit?.windowMs) || authFailureLimit.windowMs < 1)) {
    report('authFailureLimit', 'needs integer "limit" ≥ 1 and "windowMs" ≥ 1', 'e.g. authFailureLimit: { limit: 20, windowMs: 60_000 }');
  }
  const cors = o.cors;
  if (cors !== undefined && (!Array.isArray(cors?.origins) || cors.origins.some((origin) => typeof origin !== 'string' || !/^https?:\/\/[^/]+$/.test(origin)))) {
    report('cors', 'needs "origins": a list of scheme://host[:port]', "e.g. cors: { origins: ['https://app.example.com'] }");
  }
  const limits = { ...DEFAULT_REQUEST_LIMITS, ...(o.limits ?? {}) };
  for (const [key, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || (value as number) < 1) report(`limits.${key}`, `must be an integer ≥ 1, got ${JSON.stringify(value)}`, `omit it for the default (${DEFAULT_REQUEST_LIMITS[key as keyof RequestLimits]})`);
  }
  const stdio_ = o.stdioPrincipal;
  if (stdio_ !== undefined && (typeof stdio_?.id !== 'string' || !stdio_.id)) {
    report('stdioPrincipal', 'needs a non-empty "id"', "e.g. stdioPrincipal: { id: 'local-operator', scopes: ['tickets:read'] }");
  }
  const audit = resolveAuditOptions(o.audit, report);
  const healthChecks = o.healthChecks ?? [];
  if (!Array.isArray(healthChecks) || healthChecks.some((check) => typeof check?.name !== 'string' || !check.name || typeof check.check !== 'function')) {
    report('healthChecks', 'must be an array of { name, check } with a non-empty name and a check function', "e.g. healthChecks: [{ name: 'redis', check: () => redis.ping() }]");
  }
  const admin = resolveAdminOptions(o.admin, typeof path === 'string' ? path : '/mcp', report);
  const metrics = resolveMetricsOptions(o.metrics, { mcpPath: typeof path === 'string' ? path : '/mcp', adminPath: admin?.path, authMode: o.auth?.mode ?? 'none' }, report);
  if (problems.length > 0) throw new McpStartupError(problems);
  return {
    name: o.name,
    version: o.version,
    title: o.title,
    instructions: o.instructions,
    path,
    mode,
    sessionIdleTtlMs,
    maxSessions,
    maxSessionsPerPrincipal,
    maxSubscriptionsPerSession,
    allowedOrigins: origins && new Set([...origins, ...(o.cors?.origins ?? [])].map((origin) => origin.toLowerCase())),
    allowedHosts: hosts?.includes('*') ? undefined : new Set((hosts ?? DEFAULT_HOSTS).map((host) => host.toLowerCase())),
    bodyLimit: bodyLimit!,
    http,
    stdio,
    routeThroughExpress,
    pageSize,
    shutdownTimeoutMs,
    confirmDestructive,
    approvals,
    taskTtlMs,
    toolTimeoutMs,
    unknownArguments,
    limits,
    authFailureLimit: authFailureLimit ?? { limit: 20, windowMs: 60_000 },
    cors: cors && { origins: new Set(cors.origins.map((origin) => origin.toLowerCase())), maxAgeSec: cors.maxAgeSec ?? 600 },
    redact: { patterns: o.redact?.patterns ?? [], builtIn: o.redact?.builtIn ?? true },
    auth: o.auth ?? { mode: 'none' },
    stdioPrincipal: stdio_ ? { id: stdio_.id, scopes: stdio_.scopes ?? [], roles: stdio_.roles ?? [], claims: {} } : ANONYMOUS,
    audit,
    healthChecks: Array.isArray(healthChecks) ? healthChecks : [],
    admin,
    metrics,
  };
}

const APPROVAL_KEYS = new Set(['ttlMs', 'waitMs', 'publicUrl', 'approverRoles', 'approverScopes', 'allowSelfApproval', 'webhook']);

/** Approval requests: who decides them, how long they wait, where they are announced. */
function resolveApprovalOptions(value: unknown, authOff: boolean, report: (option: string, problem: string, fix: string) => void): ResolvedApprovalOptions {
  const given = (value ?? {}) as Record<string, unknown>;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    report('approvals', `must be an object, got ${JSON.stringify(value)}`, "e.g. approvals: { ttlMs: 600_000, publicUrl: 'https://mcp.example.com' }");
  }
  const o = typeof given === 'object' && given !== null ? given : {};
  for (const key of Object.keys(o)) {
    if (!APPROVAL_KEYS.has(key)) report(`approvals.${key}`, 'is not a known option', `remove it; approvals takes ${[...APPROVAL_KEYS].join(', ')}`);
  }
  const duration = (key: 'ttlMs' | 'waitMs', fallback: number, min: number) => {
    const ms = o[key] ?? fallback;
    if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < min) report(`approvals.${key}`, `must be an integer ≥ ${min} (ms), got ${JSON.stringify(ms)}`, `set ${key}: ${fallback} (the default)`);
    return typeof ms === 'number' ? ms : fallback;
  };
  const publicUrl = o.publicUrl;
  if (publicUrl !== undefined && (typeof publicUrl !== 'string' || !/^https?:\/\/[^/?#]+(\/[^?#]*)?$/.test(publicUrl))) {
    report('approvals.publicUrl', `${JSON.stringify(publicUrl)} is not an http(s) URL without query`, "e.g. publicUrl: 'https://mcp.desk.example'");
  }
  const names = (key: 'approverRoles' | 'approverScopes', fallback: string[]) => {
    const list = o[key] ?? fallback;
    if (!Array.isArray(list) || list.some((item) => typeof item !== 'string' || !item)) {
      report(`approvals.${key}`, 'must be an array of non-empty strings', `e.g. ${key}: ${JSON.stringify(fallback)}`);
      return fallback;
    }
    return list as string[];
  };
  const allowSelfApproval = o.allowSelfApproval ?? authOff;
  if (typeof allowSelfApproval !== 'boolean') report('approvals.allowSelfApproval', 'must be true or false', 'set allowSelfApproval: false (a second person decides)');
  const webhook = o.webhook as Record<string, unknown> | undefined;
  if (webhook !== undefined) {
    if (typeof webhook !== 'object' || webhook === null || typeof webhook.url !== 'string' || !URL.canParse(webhook.url) || !/^https?:/.test(webhook.url)) {
      report('approvals.webhook', 'needs "url": an http(s) URL', "e.g. webhook: { url: 'https://chatops.example.com/mcp-approvals', secret: process.env.APPROVAL_WEBHOOK_SECRET }");
    } else if (webhook.secret !== undefined && (typeof webhook.secret !== 'string' || webhook.secret.length < 16)) {
      report('approvals.webhook.secret', 'must be a string of at least 16 characters', 'generate one, e.g. `openssl rand -hex 24`');
    }
  }
  return {
    ttlMs: duration('ttlMs', 10 * 60_000, 1_000),
    waitMs: duration('waitMs', 20_000, 0),
    publicUrl: typeof publicUrl === 'string' ? publicUrl.replace(/\/+$/, '') : undefined,
    roles: names('approverRoles', ['admin', 'approver']),
    scopes: names('approverScopes', ['mcp:admin', 'mcp:approve']),
    allowSelfApproval: allowSelfApproval === true,
    webhook:
      webhook && typeof webhook.url === 'string'
        ? {
            url: webhook.url,
            secret: typeof webhook.secret === 'string' ? webhook.secret : undefined,
            headers: (webhook.headers as Record<string, string> | undefined) ?? {},
            timeoutMs: typeof webhook.timeoutMs === 'number' ? webhook.timeoutMs : 5_000,
          }
        : undefined,
  };
}

const ADMIN_KEYS = new Set(['path', 'statsWindowMinutes']);

/** The admin dashboard: on by default at `/admin` with a 5-minute window; `false` turns it off. */
function resolveAdminOptions(value: unknown, mcpPath: string, report: (option: string, problem: string, fix: string) => void): ResolvedMcpOptions['admin'] {
  if (value === false) return undefined;
  if (value !== undefined && value !== true && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    report('admin', `must be false or an object, got ${JSON.stringify(value)}`, "e.g. admin: { path: '/admin', statsWindowMinutes: 5 }, or admin: false to turn the dashboard off");
    return undefined;
  }
  const admin = (typeof value === 'object' ? value : {}) as Record<string, unknown>;
  for (const key of Object.keys(admin)) {
    if (!ADMIN_KEYS.has(key)) report(`admin.${key}`, 'is not a known option', 'remove it; admin takes path and statsWindowMinutes');
  }
  const path = admin.path ?? '/admin';
  if (typeof path !== 'string' || !/^\/[A-Za-z0-9/_.~-]*$/.test(path) || path === '/' || path.endsWith('/')) {
    report('admin.path', `"${String(path)}" is not an absolute URL path`, "use a path like '/admin' (leading slash, no trailing slash, not the root)");
  } else if (path === mcpPath) {
    report('admin.path', `"${path}" is the path of the MCP endpoint`, "give the dashboard a path of its own, e.g. '/admin'");
  }
  const minutes = admin.statsWindowMinutes ?? 5;
  if (typeof minutes !== 'number' || !Number.isInteger(minutes) || minutes < 1 || minutes > 1_440) {
    report('admin.statsWindowMinutes', `must be an integer from 1 to 1440, got ${JSON.stringify(minutes)}`, 'set statsWindowMinutes: 5 (the default) or another number of minutes up to a day');
  }
  return { path: path as string, statsWindowMs: (minutes as number) * 60_000 };
}

const METRICS_KEYS = new Set(['path', 'port', 'host', 'token']);
/** A metrics token shorter than this is too easy to guess. */
const MIN_METRICS_TOKEN = 16;

/** Prometheus metrics: on by default at `/metrics` on the main HTTP server; `false` turns them off. */
function resolveMetricsOptions(
  value: unknown,
  context: { mcpPath: string; adminPath: string | undefined; authMode: string },
  report: (option: string, problem: string, fix: string) => void,
): ResolvedMcpOptions['metrics'] {
  if (value === false) return undefined;
  if (value !== undefined && value !== true && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    report('metrics', `must be true, false or an object, got ${JSON.stringify(value)}`, "e.g. metrics: { path: '/metrics' }, metrics: { port: 9464 }, or metrics: false to turn them off");
    return undefined;
  }
  const metrics = (typeof value === 'object' ? value : {}) as Record<string, unknown>;
  for (const key of Object.keys(metrics)) {
    if (!METRICS_KEYS.has(key)) report(`metrics.${key}`, 'is not a known option', 'remove it; metrics takes path, port, host and token');
  }
  const path = metrics.path ?? '/metrics';
  const port = metrics.port;
  if (typeof path !== 'string' || !/^\/[A-Za-z0-9/_.~-]*$/.test(path) || path === '/' || path.endsWith('/')) {
    report('metrics.path', `"${String(path)}" is not an absolute URL path`, "use a path like '/metrics' (leading slash, no trailing slash, not the root)");
  } else if (port === undefined && (path === context.mcpPath || path === context.adminPath)) {
    report('metrics.path', `"${path}" is the path of the ${path === context.mcpPath ? 'MCP endpoint' : 'admin dashboard'}`, "give the metrics a path of their own, e.g. '/metrics'");
  }
  if (port !== undefined && (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65_535)) {
    report('metrics.port', `must be an integer from 1 to 65535, got ${JSON.stringify(port)}`, 'e.g. metrics: { port: 9464 }, or leave port out to serve /metrics on the main HTTP server');
  }
  const host = metrics.host ?? '127.0.0.1';
  if (typeof host !== 'string' || !host.trim()) {
    report('metrics.host', `must be a non-empty string, got ${JSON.stringify(host)}`, "e.g. host: '127.0.0.1' (the default) or '0.0.0.0'");
  } else if (metrics.host !== undefined && port === undefined) {
    report('metrics.host', 'only applies to the listener of its own (metrics.port)', 'set metrics.port too, or leave host out to serve /metrics on the main HTTP server');
  }
  const token = metrics.token;
  if (token !== undefined && (typeof token !== 'string' || token.length < MIN_METRICS_TOKEN || /\s/.test(token))) {
    report('metrics.token', `must be a string of at least ${MIN_METRICS_TOKEN} characters without spaces`, "generate one, e.g. `openssl rand -hex 24`, and pass it from the environment: token: process.env.METRICS_TOKEN");
  }
  if (context.authMode === 'none' && token === undefined && port !== undefined && typeof host === 'string' && !isLoopbackHost(host)) {
    report(
      'metrics.host',
      `authentication is off ('none'), so metrics answer loopback callers only, but the listener would be on ${host}`,
      "keep host '127.0.0.1', or set metrics.token for scrapers from elsewhere (or configure auth)",
    );
  }
  return { path: path as string, port: port as number | undefined, host: host as string, token: token as string | undefined };
}

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function parseSize(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value > 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = SIZE.exec(value.trim());
  return match ? Math.floor(Number(match[1]) * UNITS[(match[2] ?? 'b').toLowerCase()]) : undefined;
}
