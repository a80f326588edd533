import { isIP } from 'node:net';
import { forwardingEnvironment, type AuditForwardingEnvironment } from './audit-forwarding.env';
import { ALL_DESK_SCOPES } from './support/desk.scopes';

/** The example host's environment, validated at start-up by `@nestjs/config`. */
export interface HostEnvironment extends AuditForwardingEnvironment {
  HOST: string;
  PORT: number;
  /** The HTTP framework under the desk: `express` (default) or `fastify`. */
  HTTP_PLATFORM: 'express' | 'fastify';
  MCP_MODE: 'stateful' | 'stateless';
  /** Comma-separated; extra `Host` names to accept besides loopback (e.g. behind a proxy). */
  MCP_ALLOWED_HOSTS: string[];
  /** Comma-separated browser origins to accept besides loopback. */
  MCP_ALLOWED_ORIGINS: string[] | undefined;
  SUPPORT_READ_ONLY: boolean;
  SUPPORT_REPORT_STEP_MS: number;
  /** `none` (loopback only; every caller is the local operator), `apiKey`, `oauth`, or `facade` (the desk's own authorization server in front of the company IdP). */
  AUTH_MODE: 'none' | 'apiKey' | 'oauth' | 'facade';
  /** OAuth: the token issuer, its JWKS, this server's URL (the audience) and the scopes every call needs. */
  OAUTH_ISSUER: string | undefined;
  OAUTH_JWKS_URI: string | undefined;
  MCP_RESOURCE_URL: string | undefined;
  OAUTH_REQUIRED_SCOPES: string[];
  /** `AUTH_MODE=facade`: the company IdP people sign in at, and the desk's registration there. */
  IDP_ISSUER: string | undefined;
  IDP_CLIENT_ID: string | undefined;
  IDP_CLIENT_SECRET: string | undefined;
  /** `AUTH_MODE=facade`: an IdP whose ID-JAGs the desk takes (enterprise-managed authorization). */
  IDP_TRUSTED_ISSUER: string | undefined;
  IDP_TRUSTED_JWKS_URI: string | undefined;
  /** That IdP's subjects are the company IdP's people (one directory behind two issuers); otherwise they stay apart. */
  IDP_TRUSTED_SAME_DIRECTORY: boolean;
  /**
   * `AUTH_MODE=facade`: the hosts whose Client ID Metadata Documents the desk accepts (a CIMD trust
   * policy), comma-separated: `clients.corp.example`, or `*.corp.example` for every host under it.
   * Empty: any host.
   */
  CIMD_TRUSTED_HOSTS: string[];
  /** `AUTH_MODE=facade`: hosts whose metadata documents may be on private addresses (an intranet's own clients). */
  CIMD_ALLOW_HOSTS: string[];
  /** `AUTH_MODE=facade`: a PEM file of the certificates those hosts' TLS is signed with (a company CA). */
  CIMD_CA_FILE: string | undefined;
  /** Seals the accounts people connect to REST APIs and upstreams (`credential: { mode: 'user' }`): 32 bytes, base64. */
  CONNECTIONS_KEY: string | undefined;
  /** JSON file with `{ keys: [{ hash, principal, scopes, roles }] }` (hashes only). */
  MCP_API_KEYS_FILE: string;
  /** Calls per principal and per tool allowed in each window of THROTTLE_TTL_MS. */
  THROTTLE_LIMIT: number;
  THROTTLE_TTL_MS: number;
  /** Shared throttling counters on Redis (every replica counts together); in memory when unset. */
  REDIS_URL: string | undefined;
  /** Where the audit trail goes: a JSON-lines file (`jsonl`), PostgreSQL (`postgres`, needs DATABASE_URL) or nowhere (`off`). */
  AUDIT_SINK: 'jsonl' | 'postgres' | 'off';
  AUDIT_FILE: string;
  /** `fail-closed` refuses calls while the trail cannot be written; `buffered` keeps them going. */
  AUDIT_POLICY: 'fail-closed' | 'buffered';
  /** This replica's chain id (give each replica its own); the host name when unset. */
  AUDIT_CHAIN: string | undefined;
  /**
   * PostgreSQL connection URL: the desk keeps its customers and tickets there (shared by every
   * replica; in memory when unset), and the audit sink writes there when AUDIT_SINK=postgres,
   * unless AUDIT_DATABASE_URL names another database.
   */
  DATABASE_URL: string | undefined;
  /**
   * Where the audit sink writes when AUDIT_SINK=postgres: a database of its own, so that the
   * trail can be kept (and its access granted) apart from the desk's data. Unset: DATABASE_URL.
   */
  AUDIT_DATABASE_URL: string | undefined;
  /** Where users' browsers reach the desk (`https://desk.example`), for links to the approval page. */
  APPROVALS_PUBLIC_URL: string | undefined;
  /** A chat-ops endpoint told of every approval request (JSON POST), and the secret that signs it. */
  APPROVALS_WEBHOOK_URL: string | undefined;
  APPROVALS_WEBHOOK_SECRET: string | undefined;
  /**
   * Seals the state a 2026-07-28 client brings back with the input a call asked for: the same on
   * every replica, so the retry may reach any. Unset: each process uses a random key of its own.
   */
  MCP_REQUEST_STATE_SECRET: string | undefined;
  /**
   * This replica's name in metrics (the `replica` label), readiness and the admin dashboard, e.g.
   * the pod name. Unset: `<host name>-<pid>`.
   */
  MCP_REPLICA: string | undefined;
  /**
   * How long a stop (SIGTERM) waits for the calls in flight before it cancels them (each answered
   * so), and again at most as long for the audit trail to be written: the host's `shutdownTimeoutMs`.
   */
  MCP_SHUTDOWN_TIMEOUT_MS: number;
  /** Comma-separated scopes of the stdio principal (and of the CLI without a key); every desk scope by default. */
  MCP_STDIO_SCOPES: string[];
  /** Comma-separated roles of the stdio principal (and of the CLI without a key); `admin` by default. */
  MCP_STDIO_ROLES: string[];
  /**
   * JSON file of upstream MCP servers the desk federates beside its own tools (the gateway,
   * docs/gateway.md): `{ "upstreams": [...] }`, `${VAR}` replaced from the environment. Unset: none.
   */
  GATEWAY_UPSTREAMS_FILE: string | undefined;
  /**
   * JSON file of external REST APIs whose OpenAPI operations become tools (the `rest.apis`
   * option, docs/rest-bridge.md): `{ "apis": [...] }`, `${VAR}` replaced from the environment. Unset: none.
   */
  REST_APIS_FILE: string | undefined;
  /**
   * Tool search: `on` adds the meta-tools `search_tools` and `call_tool` beside the tools,
   * `list-only` lists only them (every tool stays callable), `off` (default) neither.
   */
  MCP_TOOL_SEARCH: 'off' | 'on' | 'list-only';
  /**
   * Virtual servers managed at run time through the admin API (docs/virtual-servers.md): `on`
   * (default) stores them in PostgreSQL with DATABASE_URL, else in VIRTUAL_SERVERS_FILE; `off`.
   */
  VIRTUAL_SERVERS: 'on' | 'off';
  /** The file the virtual servers are stored in without DATABASE_URL. */
  VIRTUAL_SERVERS_FILE: string;
  /** The file the pins of pinned upstreams and APIs are kept in without DATABASE_URL (docs/governance.md). */
  CATALOG_PINS_FILE: string;
  /** Comma-separated hosts an upstream added at run time may be on although private (refused otherwise). */
  VIRTUAL_SERVERS_ALLOW_HOSTS: string[];
  /**
   * Comma-separated addresses or CIDR ranges of the load balancers in front of the desk (the
   * `trustProxy` option): their `X-Forwarded-For` names the client. Unset: the socket's peer is.
   */
  TRUST_PROXY: string[];
  /** The lowest level logged: `debug` adds clients' refused requests (one line each) and other detail. */
  LOG_LEVEL: 'debug' | 'log' | 'warn' | 'error';
}

const TOOL_SEARCH_MODES = ['off', 'on', 'list-only'] as const;

/** An IPv4/IPv6 address, or one with a prefix length (`10.0.0.0/8`, `fd00::/8`). */
function isAddressOrRange(entry: string): boolean {
  const [address, prefix, extra] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

/** The Nest log levels each LOG_LEVEL turns on. */
export const LOG_LEVELS = {
  debug: ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'],
  log: ['fatal', 'error', 'warn', 'log'],
  warn: ['fatal', 'error', 'warn'],
  error: ['fatal', 'error'],
} as const;

const text = (value: unknown) => (typeof value === 'string' && value ? value : undefined);

/** A host name or IP literal as a list names it: no scheme, port or path; `*.` in front for every host under it. */
const HOST_ENTRY =
  /^(\*\.)?([A-Za-z0-9\u0080-\uffff]([A-Za-z0-9\u0080-\uffff-]*[A-Za-z0-9\u0080-\uffff])?\.?)+$|^\[[0-9A-Fa-f:.]+\]$/;

const list = (value: unknown) =>
  typeof value === 'string' && value.trim()
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean)
    : [];

/** @throws Error naming every variable that is wrong and how to set it. */
export function validateEnvironment(env: Record<string, unknown>): HostEnvironment {
  const problems: string[] = [];
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    problems.push(`PORT="${env.PORT}" must be an integer from 0 to 65535`);
  const platform = env.HTTP_PLATFORM ?? 'express';
  if (platform !== 'express' && platform !== 'fastify')
    problems.push(`HTTP_PLATFORM="${platform}" must be "express" or "fastify"`);
  const mode = env.MCP_MODE ?? 'stateful';
  if (mode !== 'stateful' && mode !== 'stateless')
    problems.push(`MCP_MODE="${mode}" must be "stateful" or "stateless"`);
  const readOnly = String(env.SUPPORT_READ_ONLY ?? 'false');
  if (readOnly !== 'true' && readOnly !== 'false')
    problems.push(`SUPPORT_READ_ONLY="${readOnly}" must be "true" or "false"`);
  const stepMs = Number(env.SUPPORT_REPORT_STEP_MS ?? 250);
  if (!Number.isInteger(stepMs) || stepMs < 0)
    problems.push(`SUPPORT_REPORT_STEP_MS="${env.SUPPORT_REPORT_STEP_MS}" must be a whole number of milliseconds`);
  const throttleLimit = Number(env.THROTTLE_LIMIT ?? 120);
  if (!Number.isInteger(throttleLimit) || throttleLimit < 1)
    problems.push(`THROTTLE_LIMIT="${env.THROTTLE_LIMIT}" must be a whole number ≥ 1`);
  const throttleTtl = Number(env.THROTTLE_TTL_MS ?? 60_000);
  if (!Number.isInteger(throttleTtl) || throttleTtl < 1)
    problems.push(`THROTTLE_TTL_MS="${env.THROTTLE_TTL_MS}" must be a whole number of milliseconds ≥ 1`);
  const redisUrl = typeof env.REDIS_URL === 'string' && env.REDIS_URL ? env.REDIS_URL : undefined;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl))
    problems.push(`REDIS_URL="${redisUrl}" must start with redis:// or rediss://`);
  const authMode = env.AUTH_MODE ?? 'none';
  if (authMode !== 'none' && authMode !== 'apiKey' && authMode !== 'oauth' && authMode !== 'facade')
    problems.push(`AUTH_MODE="${authMode}" must be "none", "apiKey", "oauth" or "facade"`);
  if (authMode === 'facade') {
    for (const name of ['MCP_RESOURCE_URL', 'IDP_ISSUER']) {
      if (typeof env[name] !== 'string' || !URL.canParse(env[name] as string))
        problems.push(`${name} must be an absolute URL when AUTH_MODE=facade`);
    }
    for (const name of ['IDP_CLIENT_ID', 'IDP_CLIENT_SECRET'])
      if (typeof env[name] !== 'string' || !env[name])
        problems.push(`${name} must be set when AUTH_MODE=facade (the desk's registration at the IdP)`);
    if ((env.IDP_TRUSTED_ISSUER === undefined) !== (env.IDP_TRUSTED_JWKS_URI === undefined))
      problems.push('IDP_TRUSTED_ISSUER and IDP_TRUSTED_JWKS_URI go together');
  }
  const sameDirectory = String(env.IDP_TRUSTED_SAME_DIRECTORY ?? 'false');
  if (sameDirectory !== 'true' && sameDirectory !== 'false')
    problems.push(`IDP_TRUSTED_SAME_DIRECTORY="${sameDirectory}" must be "true" or "false"`);
  const cimdTrustedHosts = list(env.CIMD_TRUSTED_HOSTS);
  const cimdAllowHosts = list(env.CIMD_ALLOW_HOSTS);
  for (const [name, hosts] of [
    ['CIMD_TRUSTED_HOSTS', cimdTrustedHosts],
    ['CIMD_ALLOW_HOSTS', cimdAllowHosts],
  ] as const)
    for (const host of hosts.filter(
      (entry) => !HOST_ENTRY.test(entry) || (name === 'CIMD_ALLOW_HOSTS' && entry.startsWith('*.')),
    ))
      problems.push(
        `${name} entry "${host}" must be a host name (no scheme, port or path)${name === 'CIMD_TRUSTED_HOSTS' ? ', or *.domain for every host under it' : ''}`,
      );
  const connectionsKey =
    typeof env.CONNECTIONS_KEY === 'string' && env.CONNECTIONS_KEY ? env.CONNECTIONS_KEY : undefined;
  if (connectionsKey && Buffer.from(connectionsKey, 'base64').length !== 32)
    problems.push('CONNECTIONS_KEY must be 32 bytes, base64 (openssl rand -base64 32)');
  if (authMode === 'oauth') {
    for (const name of ['OAUTH_ISSUER', 'OAUTH_JWKS_URI', 'MCP_RESOURCE_URL']) {
      if (typeof env[name] !== 'string' || !URL.canParse(env[name] as string))
        problems.push(`${name} must be an absolute URL when AUTH_MODE=oauth`);
    }
  }
  const auditSink = env.AUDIT_SINK ?? 'jsonl';
  if (auditSink !== 'jsonl' && auditSink !== 'postgres' && auditSink !== 'off')
    problems.push(`AUDIT_SINK="${auditSink}" must be "jsonl", "postgres" or "off"`);
  const auditPolicy = env.AUDIT_POLICY ?? 'fail-closed';
  if (auditPolicy !== 'fail-closed' && auditPolicy !== 'buffered')
    problems.push(`AUDIT_POLICY="${auditPolicy}" must be "fail-closed" or "buffered"`);
  const auditForwarding = forwardingEnvironment(env, auditSink, problems);
  const postgresUrl = (name: 'DATABASE_URL' | 'AUDIT_DATABASE_URL') => {
    const value = typeof env[name] === 'string' && env[name] ? (env[name] as string) : undefined;
    if (value && !/^postgres(ql)?:\/\//.test(value))
      problems.push(`${name} must start with postgres:// or postgresql://`);
    return value;
  };
  const databaseUrl = postgresUrl('DATABASE_URL');
  const auditDatabaseUrl = postgresUrl('AUDIT_DATABASE_URL') ?? databaseUrl;
  if (auditSink === 'postgres' && !auditDatabaseUrl)
    problems.push(
      'AUDIT_DATABASE_URL or DATABASE_URL must be set (postgres://user:password@host:5432/db) when AUDIT_SINK=postgres',
    );
  const url = (name: string) => {
    const value = typeof env[name] === 'string' && env[name] ? (env[name] as string) : undefined;
    if (value !== undefined && !/^https?:\/\//.test(value)) problems.push(`${name}="${value}" must be an http(s) URL`);
    return value;
  };
  const approvalsPublicUrl = url('APPROVALS_PUBLIC_URL');
  const approvalsWebhookUrl = url('APPROVALS_WEBHOOK_URL');
  const approvalsWebhookSecret =
    typeof env.APPROVALS_WEBHOOK_SECRET === 'string' && env.APPROVALS_WEBHOOK_SECRET
      ? env.APPROVALS_WEBHOOK_SECRET
      : undefined;
  if (approvalsWebhookSecret !== undefined && approvalsWebhookSecret.length < 16)
    problems.push('APPROVALS_WEBHOOK_SECRET must be at least 16 characters (e.g. `openssl rand -hex 24`)');
  const requestStateSecret =
    typeof env.MCP_REQUEST_STATE_SECRET === 'string' && env.MCP_REQUEST_STATE_SECRET
      ? env.MCP_REQUEST_STATE_SECRET
      : undefined;
  if (requestStateSecret !== undefined && Buffer.byteLength(requestStateSecret) < 32)
    problems.push('MCP_REQUEST_STATE_SECRET must be at least 32 bytes (e.g. `openssl rand -base64 48`)');
  const replica = typeof env.MCP_REPLICA === 'string' && env.MCP_REPLICA ? env.MCP_REPLICA : undefined;
  // The McpModule option's own rule, told here in the environment's words.
  if (replica !== undefined && !/^[A-Za-z0-9._:-]{1,64}$/.test(replica))
    problems.push(`MCP_REPLICA="${replica}" must be at most 64 letters, digits, ".", "_", ":" or "-" (e.g. desk-eu-1)`);
  const shutdownTimeoutMs = Number(env.MCP_SHUTDOWN_TIMEOUT_MS ?? 10_000);
  if (!Number.isInteger(shutdownTimeoutMs) || shutdownTimeoutMs < 0)
    problems.push(
      `MCP_SHUTDOWN_TIMEOUT_MS="${env.MCP_SHUTDOWN_TIMEOUT_MS}" must be a whole number of milliseconds (default 10000); keep the grace period of the container above twice it`,
    );
  const stdioScopes = env.MCP_STDIO_SCOPES === undefined ? [...ALL_DESK_SCOPES] : list(env.MCP_STDIO_SCOPES);
  for (const scope of stdioScopes.filter((item) => !(ALL_DESK_SCOPES as readonly string[]).includes(item)))
    problems.push(`MCP_STDIO_SCOPES names "${scope}", which is no scope of the desk (${ALL_DESK_SCOPES.join(', ')})`);
  const stdioRoles = env.MCP_STDIO_ROLES === undefined ? ['admin'] : list(env.MCP_STDIO_ROLES);
  const toolSearch = env.MCP_TOOL_SEARCH || 'off';
  if (!TOOL_SEARCH_MODES.includes(toolSearch as never))
    problems.push(`MCP_TOOL_SEARCH="${toolSearch}" must be ${TOOL_SEARCH_MODES.map((mode) => `"${mode}"`).join(', ')}`);
  const virtualServers = env.VIRTUAL_SERVERS || 'on';
  if (virtualServers !== 'on' && virtualServers !== 'off')
    problems.push(`VIRTUAL_SERVERS="${virtualServers}" must be "on" or "off"`);
  const trustProxy = list(env.TRUST_PROXY);
  for (const entry of trustProxy.filter((item) => !isAddressOrRange(item)))
    problems.push(
      `TRUST_PROXY entry "${entry}" must be an IP address or CIDR range of your load balancers (e.g. 10.0.0.0/8,127.0.0.1)`,
    );
  const logLevel = env.LOG_LEVEL ?? 'log';
  if (typeof logLevel !== 'string' || !Object.hasOwn(LOG_LEVELS, logLevel))
    problems.push(`LOG_LEVEL="${logLevel}" must be one of ${Object.keys(LOG_LEVELS).join(', ')}`);
  if (problems.length > 0) throw new Error(`Invalid environment:\n  - ${problems.join('\n  - ')}`);

  const origins = list(env.MCP_ALLOWED_ORIGINS);
  return {
    HOST: typeof env.HOST === 'string' && env.HOST ? env.HOST : '127.0.0.1',
    PORT: port,
    HTTP_PLATFORM: platform as HostEnvironment['HTTP_PLATFORM'],
    MCP_MODE: mode as HostEnvironment['MCP_MODE'],
    MCP_ALLOWED_HOSTS: ['localhost', '127.0.0.1', '[::1]', ...list(env.MCP_ALLOWED_HOSTS)],
    MCP_ALLOWED_ORIGINS: origins.length > 0 ? origins : undefined,
    SUPPORT_READ_ONLY: readOnly === 'true',
    SUPPORT_REPORT_STEP_MS: stepMs,
    AUTH_MODE: authMode as HostEnvironment['AUTH_MODE'],
    OAUTH_ISSUER: env.OAUTH_ISSUER as string | undefined,
    OAUTH_JWKS_URI: env.OAUTH_JWKS_URI as string | undefined,
    MCP_RESOURCE_URL: env.MCP_RESOURCE_URL as string | undefined,
    OAUTH_REQUIRED_SCOPES: list(env.OAUTH_REQUIRED_SCOPES),
    IDP_ISSUER: text(env.IDP_ISSUER),
    IDP_CLIENT_ID: text(env.IDP_CLIENT_ID),
    IDP_CLIENT_SECRET: text(env.IDP_CLIENT_SECRET),
    IDP_TRUSTED_ISSUER: text(env.IDP_TRUSTED_ISSUER),
    IDP_TRUSTED_JWKS_URI: text(env.IDP_TRUSTED_JWKS_URI),
    IDP_TRUSTED_SAME_DIRECTORY: sameDirectory === 'true',
    CIMD_TRUSTED_HOSTS: cimdTrustedHosts,
    CIMD_ALLOW_HOSTS: cimdAllowHosts,
    CIMD_CA_FILE: text(env.CIMD_CA_FILE),
    CONNECTIONS_KEY: connectionsKey,
    THROTTLE_LIMIT: throttleLimit,
    THROTTLE_TTL_MS: throttleTtl,
    REDIS_URL: redisUrl,
    MCP_API_KEYS_FILE:
      typeof env.MCP_API_KEYS_FILE === 'string' && env.MCP_API_KEYS_FILE
        ? env.MCP_API_KEYS_FILE
        : 'config/api-keys.example.json',
    AUDIT_SINK: auditSink as HostEnvironment['AUDIT_SINK'],
    AUDIT_FILE: typeof env.AUDIT_FILE === 'string' && env.AUDIT_FILE ? env.AUDIT_FILE : 'audit/audit.jsonl',
    AUDIT_POLICY: auditPolicy as HostEnvironment['AUDIT_POLICY'],
    AUDIT_CHAIN: typeof env.AUDIT_CHAIN === 'string' && env.AUDIT_CHAIN ? env.AUDIT_CHAIN : undefined,
    ...auditForwarding,
    DATABASE_URL: databaseUrl,
    AUDIT_DATABASE_URL: auditDatabaseUrl,
    APPROVALS_PUBLIC_URL: approvalsPublicUrl,
    APPROVALS_WEBHOOK_URL: approvalsWebhookUrl,
    APPROVALS_WEBHOOK_SECRET: approvalsWebhookSecret,
    MCP_REQUEST_STATE_SECRET: requestStateSecret,
    MCP_REPLICA: replica,
    MCP_SHUTDOWN_TIMEOUT_MS: shutdownTimeoutMs,
    MCP_STDIO_SCOPES: stdioScopes,
    MCP_STDIO_ROLES: stdioRoles,
    GATEWAY_UPSTREAMS_FILE:
      typeof env.GATEWAY_UPSTREAMS_FILE === 'string' && env.GATEWAY_UPSTREAMS_FILE
        ? env.GATEWAY_UPSTREAMS_FILE
        : undefined,
    REST_APIS_FILE: typeof env.REST_APIS_FILE === 'string' && env.REST_APIS_FILE ? env.REST_APIS_FILE : undefined,
    MCP_TOOL_SEARCH: toolSearch as HostEnvironment['MCP_TOOL_SEARCH'],
    TRUST_PROXY: trustProxy,
    VIRTUAL_SERVERS: virtualServers === 'off' ? 'off' : 'on',
    VIRTUAL_SERVERS_FILE:
      typeof env.VIRTUAL_SERVERS_FILE === 'string' && env.VIRTUAL_SERVERS_FILE
        ? env.VIRTUAL_SERVERS_FILE
        : 'state/virtual-servers.json',
    CATALOG_PINS_FILE:
      typeof env.CATALOG_PINS_FILE === 'string' && env.CATALOG_PINS_FILE
        ? env.CATALOG_PINS_FILE
        : 'state/catalog-pins.json',
    VIRTUAL_SERVERS_ALLOW_HOSTS: list(env.VIRTUAL_SERVERS_ALLOW_HOSTS),
    LOG_LEVEL: logLevel as HostEnvironment['LOG_LEVEL'],
  };
}
