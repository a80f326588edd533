import type { McpPrincipal, McpUnknownArguments } from '#libs/core';
import type { McpAuthOptions, ResolvedAuditOptions } from '#libs/security';
import type { RequestLimits } from './dispatch/request-limits';
import type { McpModuleOptions } from '#libs/hosting';
import type { McpHealthCheck } from '#libs/operations';

/** Token of the validated options with every default filled in. */
export const MCP_RESOLVED_OPTIONS = Symbol('MCP:RESOLVED_OPTIONS');

export interface ResolvedApprovalOptions {
  ttlMs: number;
  waitMs: number;
  /** Without a trailing slash. */
  publicUrl: string | undefined;
  roles: readonly string[];
  scopes: readonly string[];
  allowSelfApproval: boolean;
  webhook: { url: string; secret: string | undefined; headers: Record<string, string>; timeoutMs: number } | undefined;
}

/** `McpModuleOptions` after validation, defaults merged (in one place: `resolveMcpOptions`). */
export interface ResolvedMcpOptions {
  name: string;
  version: string;
  title: string | undefined;
  instructions: string | undefined;
  path: string;
  mode: 'stateful' | 'stateless';
  sessionIdleTtlMs: number;
  maxSessions: number;
  maxSessionsPerPrincipal: number;
  maxSubscriptionsPerSession: number;
  /** `undefined`: loopback origins only. */
  allowedOrigins: ReadonlySet<string> | undefined;
  /** `undefined`: any host. */
  allowedHosts: ReadonlySet<string> | undefined;
  bodyLimit: number;
  http: boolean;
  stdio: boolean;
  routeThroughExpress: boolean;
  pageSize: number;
  shutdownTimeoutMs: number;
  confirmDestructive: boolean;
  approvals: ResolvedApprovalOptions;
  taskTtlMs: number;
  toolTimeoutMs: number;
  unknownArguments: McpUnknownArguments;
  limits: RequestLimits;
  authFailureLimit: { limit: number; windowMs: number };
  /** `undefined`: CORS off. */
  cors: { origins: ReadonlySet<string>; maxAgeSec: number } | undefined;
  redact: { patterns: (RegExp | string)[]; builtIn: boolean };
  auth: McpAuthOptions;
  stdioPrincipal: McpPrincipal;
  /** `undefined`: no audit trail. */
  audit: ResolvedAuditOptions | undefined;
  healthChecks: McpHealthCheck[];
  /** `undefined`: no admin dashboard. */
  admin: { path: string; statsWindowMs: number } | undefined;
  /** `undefined`: no metrics. `port` set: served on a listener of its own at `host:port`, not on the main server. */
  metrics: { path: string; port: number | undefined; host: string; token: string | undefined } | undefined;
}
