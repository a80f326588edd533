import type { Type } from '@nestjs/common';
import type { McpCacheOptions, McpUnknownArguments } from '#libs/core';
import type { McpAuditOptions, McpAuthOptions, McpTrustProxy } from '#libs/security';
import type { McpAuthorizationServerOptions } from '#libs/authorization-server';
import type { McpDownstreamOptions } from '#libs/downstream-identity';
import type { RequestLimits } from '#libs/protocol';
import type { McpHealthCheck } from '#libs/operations';
import type { McpRestOptions } from '#libs/rest';
import type { McpGatewayOptions } from '#libs/gateway';
import type { McpVirtualServersOptions } from '#libs/virtual-servers';
import type { McpToolSearchOptions } from '#libs/tool-search';
import type { McpClusterOptions } from './mcp-cluster-options.interface';
import type { McpGovernanceOptions } from '#libs/governance';

/** The `approvals` option: who decides approval requests, for how long they wait, who hears of them. */
export interface McpApprovalOptions {
  /** A request waits this long for a decision, then expires (audited). @default 600_000 (10 min) */
  ttlMs?: number;
  /** A call whose user was sent to the approval page waits this long for the decision before it answers "pending". @default 20_000 */
  waitMs?: number;
  /**
   * The host's address as users' browsers reach it (`https://mcp.desk.example`), for the link to
   * the approval page. Without it, only loopback hosts (development) send such links.
   */
  publicUrl?: string;
  /** Roles that may decide any request. @default ['admin', 'approver'] */
  approverRoles?: string[];
  /** Scopes that may decide any request. @default ['mcp:admin', 'mcp:approve'] */
  approverScopes?: string[];
  /**
   * Whether the principal whose call waits may decide its own approval request: an approver any
   * of its own, and the user a request was sent to by URL-mode elicitation that one (on the
   * approval page, the admin API, the dashboard or the CLI alike). Off, a decision needs an
   * approver other than the caller — a credential the calling program does not hold — and the
   * caller's own is refused with 403 naming this option. Turn it on only when the caller's
   * credential is a person's (one operator at their own machine), never for an agent's API key.
   * @default true with `auth: { mode: 'none' }` (every caller is the one local operator), else false
   * @example
   * ```ts
   * // A desktop app whose key is its user's own: the user approves their own calls on the page.
   * approvals: { allowSelfApproval: true }
   * ```
   */
  allowSelfApproval?: boolean;
  /**
   * Told of every request opened, decided or expired: a JSON POST for chat-ops integrations,
   * signed with HMAC-SHA256 of the body in `X-Mcp-Signature: sha256=<hex>` when `secret` is set.
   */
  webhook?: { url: string; secret?: string; headers?: Record<string, string>; timeoutMs?: number };
  /**
   * The approval page of a host that serves stdio without HTTP (it has no dashboard): a listener
   * of its own on 127.0.0.1 serving the dashboard's page and the approvals API, where a client
   * with URL-mode elicitation sends its user and approvers sign in (its address is logged on
   * stderr). Any free port unless `port` is given; `false` serves none. Only for `stdio: true,
   * http: false`: with HTTP the page is the dashboard's.
   * @default on when a tool needs confirmation at start-up, on any free port
   * @example
   * ```ts
   * approvals: { stdioPage: { port: 7411 } } // a fixed address an operator can bookmark
   * ```
   */
  stdioPage?: boolean | { port?: number };
}

/**
 * The `requestState` option: how the host seals the state of a 2026-07-28 multi round-trip
 * request, the opaque `requestState` a client echoes when it brings the input a call asked for.
 */
export interface McpRequestStateOptions {
  /**
   * The secret the sealing key is derived from: at least 32 bytes of random text, the same on
   * every replica so that a retry may reach any of them. A list rotates secrets: the first
   * seals, each one opens (add the new one first, remove the old one after `ttlMs`).
   * @default a random key of this process: a retry must come back to the process that asked
   */
  secret?: string | string[];
  /** A state is accepted for this long after the round that sealed it (ms). @default 600_000 (10 min) */
  ttlMs?: number;
}

/**
 * Options of `McpModule.forRoot()` / `forRootAsync()`. Every option is validated at start-up.
 *
 * @example
 * ```ts
 * McpModule.forRoot({
 *   name: 'support-desk',
 *   version: '1.0.0',
 *   instructions: 'Tools for the support desk: search customers, manage tickets.',
 *   mode: 'stateful',
 *   allowedHosts: ['localhost', '127.0.0.1'],
 * })
 * ```
 */
export interface McpModuleOptions {
  /** Server name announced in `initialize` (`serverInfo.name`). Required. */
  name: string;
  /** Server version announced in `initialize` (`serverInfo.version`). Required. */
  version: string;
  /** Human-readable server title. */
  title?: string;
  /** Instructions for the model, sent in the `initialize` result. */
  instructions?: string;
  /** HTTP path of the Streamable HTTP endpoint; each endpoint of an application needs its own. @default '/mcp' */
  path?: string;
  /**
   * The modules whose tools, prompts and resources this endpoint serves: only the providers
   * declared in these modules are scanned, not those of the modules they import (list each one,
   * as GraphQL's `include` does). Give a module by its class, also when it is imported as
   * `BillingModule.register(...)`. Without it, the endpoint serves every provider of the
   * application. Use it with several `McpModule.forRoot()` imports, one endpoint each.
   * @default every module
   * @example
   * ```ts
   * imports: [
   *   SupportModule,
   *   BillingModule,
   *   McpModule.forRoot({ name: 'support', version: '1.0.0', path: '/mcp/support', include: [SupportModule] }),
   *   McpModule.forRoot({
   *     name: 'billing', version: '1.0.0', path: '/mcp/billing', include: [BillingModule],
   *     admin: false, metrics: false, health: false, // the dashboard, metrics and probes stay with 'support'
   *   }),
   * ]
   * ```
   */
  include?: Type[];
  /** `stateful`: sessions with `Mcp-Session-Id`; `stateless`: every request stands alone. @default 'stateful' */
  mode?: 'stateful' | 'stateless';
  /** A session unused for this long is ended (ms). @default 1_800_000 (30 min) */
  sessionIdleTtlMs?: number;
  /**
   * At most this many live sessions; `initialize` beyond it is refused with 503. Also the most
   * open `subscriptions/listen` streams of 2026-07-28 clients. @default 10_000
   */
  maxSessions?: number;
  /**
   * At most this many live sessions per principal (per client address when authentication is
   * off), so one caller cannot hold the whole `maxSessions` hostage; `initialize` beyond it is
   * refused with 429 naming the limit. Also the open `subscriptions/listen` streams per
   * principal (2026-07-28; beyond it `-32602`). @default 100
   */
  maxSessionsPerPrincipal?: number;
  /**
   * At most this many `resources/subscribe` URIs per session, and `resourceSubscriptions` URIs per
   * `subscriptions/listen` stream; more are refused with `-32602`. @default 100
   */
  maxSubscriptionsPerSession?: number;
  /**
   * Origins allowed to call the endpoint (exact `scheme://host[:port]`). Requests with any other
   * `Origin` get 403. Requests without `Origin` (non-browser clients) are allowed.
   * @default loopback origins (http://localhost, http://127.0.0.1, http://[::1], any port)
   */
  allowedOrigins?: string[];
  /**
   * Host names allowed in the `Host` header (DNS-rebinding protection). `['*']` allows any.
   * @default ['localhost', '127.0.0.1', '[::1]']
   */
  allowedHosts?: string[];
  /** Largest request body accepted; bigger ones get 413. Bytes or '100kb' / '4mb'. @default '1mb' */
  bodyLimit?: number | string;
  /** Serve Streamable HTTP on the Nest HTTP server when there is one. @default true */
  http?: boolean;
  /** Serve MCP over this process's stdin/stdout. @default false */
  stdio?: boolean;
  /**
   * Route the MCP endpoint through the app's framework — an Express route, or on Fastify a
   * Fastify route — so that your middleware (and Fastify's hooks) see it, instead of serving it
   * directly on the underlying `node:http` server. Slower. @default false
   */
  routeThroughExpress?: boolean;
  /** Items per page of `tools/list`. @default 100 */
  pageSize?: number;
  /**
   * Caching hints for 2026-07-28 clients (`ttlMs`, `cacheScope` on `tools/list`, `prompts/list`,
   * `resources/list`, `resources/templates/list` and `resources/read` results) of every tool,
   * prompt, resource and template without a `cache` option of its own. A list takes the shortest
   * `ttlMs` of the entries the caller sees, and is `public` only when every entry of it is
   * `public` and open to every caller (a list that authorization filters is `private`); a read of
   * a resource restricted by `@RequireScopes`/`@Roles` is `private`. 2025-era results carry no
   * hints. Checked at start-up: `ttlMs` an integer ≥ 0, `scope` `'public'` or `'private'`.
   * @default none: `{ ttlMs: 0, scope: 'private' }` on every such result
   * @example
   * ```ts
   * cache: { ttlMs: 5 * 60_000, scope: 'public' } // the catalog changes only with a deployment
   * ```
   */
  cache?: McpCacheOptions;
  /** On shutdown, wait this long for in-flight calls before aborting them (ms). @default 10_000 */
  shutdownTimeoutMs?: number;
  /**
   * Ask a person before running any tool annotated `destructiveHint: true` (unless the tool says
   * `confirm: false`): the user in the client when it can show a form, otherwise an approval
   * request that a person decides out of band (see `approvals`). @default false
   */
  confirmDestructive?: boolean;
  /**
   * Approval requests of confirmed calls whose client cannot ask its user with a form: held by
   * the host, bound to the principal, the tool and the arguments, decided by a person on the
   * admin dashboard, through the admin API (`<admin path>/api/approvals`), or on the approval
   * page a client that supports URL-mode elicitation sends its user to.
   * @example
   * ```ts
   * approvals: {
   *   ttlMs: 15 * 60_000,
   *   publicUrl: 'https://mcp.desk.example',          // where users' browsers reach the host
   *   approverRoles: ['approver', 'admin'],
   *   webhook: { url: 'https://chatops.desk.example/mcp-approvals', secret: process.env.APPROVAL_WEBHOOK_SECRET },
   * }
   * ```
   */
  approvals?: McpApprovalOptions;
  /**
   * Who may call the HTTP endpoint: `{ mode: 'none' }` (loopback only), API keys, or an OAuth
   * 2.1 resource server. @default { mode: 'none' }
   */
  auth?: McpAuthOptions;
  /**
   * An OAuth authorization server in front of the company IdP, for clients that cannot sign in
   * there directly (Entra ID offers neither client ID metadata documents nor dynamic
   * registration): people sign in at the IdP, the host issues its own tokens; with `trustedIdps`,
   * enterprise-managed authorization (ID-JAG). Needs `auth: { mode: 'oauth', resource }`.
   * See docs/authorization-server.md. @default off
   */
  authorizationServer?: McpAuthorizationServerOptions;
  /**
   * The caller's identity downstream (each upstream's and API's `credential`): the company IdP
   * the host exchanges tokens at, and the accounts people connect themselves (their key, store
   * and pages). See docs/downstream-identity.md. @default nothing (every downstream as the service)
   * @example
   * downstream: { connections: { encryptionKey: process.env.CONNECTIONS_KEY! } }
   */
  downstream?: McpDownstreamOptions;
  /** The principal of stdio calls (the local operator), so authorization applies there too. @default anonymous */
  stdioPrincipal?: { id: string; scopes?: string[]; roles?: string[] };
  /**
   * Arguments a tool's input schema does not declare (e.g. an `id` a model adds to a create
   * call): `refuse` answers with an `isError` result naming each one, `strip` drops them, `allow`
   * leaves them to the schema's own validator. A tool's own `unknownArguments` wins; prompts
   * follow this option too. @default 'refuse'
   */
  unknownArguments?: McpUnknownArguments;
  /** Bounds on request contents (nesting depth, string and array sizes, argument count, URI length). */
  limits?: Partial<RequestLimits>;
  /**
   * Secrets removed from tool results and logged errors: extra patterns (a string is a regular
   * expression), and whether the built-in ones (bearer tokens, `password=`, URL credentials,
   * well-known key formats) apply. @default { patterns: [], builtIn: true }
   */
  redact?: { patterns?: (RegExp | string)[]; builtIn?: boolean };
  /**
   * CORS for browser clients on other origins (off by default: no CORS headers are sent). The
   * listed origins are also accepted by the `Origin` check.
   */
  cors?: { origins: string[]; maxAgeSec?: number };
  /**
   * Failed authentications per client address before its requests that fail to authenticate get
   * 429 until the window ends (a request with a valid credential is never refused by it).
   * @default { limit: 20, windowMs: 60_000 }
   */
  authFailureLimit?: { limit: number; windowMs: number };
  /**
   * The load balancers and reverse proxies in front of the host (addresses or CIDR ranges): a
   * request from one of them comes from the right-most address of `X-Forwarded-For` (or, with
   * `header: 'forwarded'`, of `Forwarded: for=`) that is not one of them. Every address-keyed
   * decision uses that address: the authentication lock-out, the per-address session and
   * listen-stream caps, throttling of anonymous callers, audit records. Without it the socket's
   * peer is the client and forwarding headers are ignored. The PROXY protocol is not supported.
   * @example
   * ```ts
   * trustProxy: ['10.0.0.0/8']                                        // X-Forwarded-For (HAProxy, nginx, ingress controllers)
   * trustProxy: { proxies: ['192.0.2.10'], header: 'forwarded' }     // RFC 7239
   * ```
   */
  trustProxy?: McpTrustProxy;
  /** Default per-call time limit of tools (a tool's `timeoutMs` wins). @default 30_000 */
  toolTimeoutMs?: number;
  /** Longest time a task and its result are kept (ms); clients may ask for less. @default 3_600_000 (1 h) */
  taskTtlMs?: number;
  /**
   * Most tasks one principal may hold in each process, running or ended and kept with their
   * results until `taskTtlMs`; a call asking for one more task is refused (`-32602`, audited
   * `limited`) and told when the oldest is forgotten. @default 100
   * @example maxTasksPerPrincipal: 20
   */
  maxTasksPerPrincipal?: number;
  /**
   * The `requestState` of 2026-07-28 multi round-trip requests. A 2026 client's call that asks
   * it for input (`ctx.elicit()`, `ctx.sample()`, `ctx.roots()`, a confirmation) is answered with
   * an `InputRequiredResult`; the client retries with the answers and the state, and the call
   * runs again on whichever replica gets the retry. The state is sealed with AES-256-GCM (the
   * client can neither read nor alter it) and bound to the caller, the request and an expiry.
   * Without a `secret`, each process seals with a random key of its own (it says so at start-up).
   * @example
   * ```ts
   * // MCP_REQUEST_STATE_SECRET: the same on every replica, e.g. `openssl rand -base64 48`
   * requestState: { secret: process.env.MCP_REQUEST_STATE_SECRET }
   * ```
   */
  requestState?: McpRequestStateOptions;
  /**
   * The audit trail: one hash-chained record per `tools/call`, `prompts/get`, `resources/read`,
   * task request and task run, and per refusal (authentication, authorization, throttling,
   * validation, limits). `true` writes `audit/audit.jsonl`. @default off
   * @example
   * ```ts
   * audit: { file: '/var/log/mcp/audit.jsonl', policy: 'fail-closed' }
   * audit: { sink: new PostgresAuditSink({ connectionString: process.env.DATABASE_URL }), policy: 'buffered' }
   * ```
   */
  audit?: boolean | McpAuditOptions;
  /**
   * The name of this replica, for operators of several behind a load balancer: the `replica`
   * label of every metric `/metrics` exports, `replica` in the `mcp` details of `/health/ready`,
   * and the replica shown on the admin dashboard. 1 to 64 letters, digits, `.`, `_`, `:` or `-`.
   * @default `<host name>-<pid>` (in Kubernetes the host name is the pod's name)
   * @example
   * ```ts
   * replica: process.env.POD_NAME // e.g. 'support-desk-7f9c4-x2x9z'
   * ```
   */
  replica?: string;

  /**
   * Replicas behind a load balancer share their state through `backplane`: sessions, their
   * event streams and requests to the client, tasks, approvals, resource subscriptions and
   * catalog changes, so that any replica serves any request (no sticky sessions). Without it
   * each process keeps all of that in memory, as a single replica does.
   * @example
   * ```ts
   * import { RedisClusterBackplane } from 'nest-mcp-host/redis';
   * cluster: { backplane: new RedisClusterBackplane(process.env.REDIS_URL!) }
   * ```
   */
  cluster?: McpClusterOptions;
  /**
   * Backing services checked by `/health/ready` (503 while a required one is down) and shown on
   * the admin dashboard. @default []
   * @example
   * ```ts
   * healthChecks: [{ name: 'redis', check: () => redis.ping() }, { name: 'crm', required: false, check: () => crm.status() }]
   * ```
   */
  healthChecks?: McpHealthCheck[];
  /**
   * The admin dashboard on the HTTP server: a page at `path` showing health, the catalog, live
   * per-tool statistics, recent audit records and sessions, and its JSON API under
   * `<path>/api/*`. The API needs a principal with the role `admin` or the scope `mcp:admin`
   * (with `auth: { mode: 'none' }`, loopback callers only). `false` turns it off.
   * Statistics cover the last `statsWindowMinutes`.
   * @default { path: '/admin', statsWindowMinutes: 5 }
   * @example
   * ```ts
   * admin: { path: '/ops/mcp', statsWindowMinutes: 15 }
   * admin: false
   * ```
   */
  admin?: boolean | { path?: string; statsWindowMinutes?: number };
  /**
   * Prometheus metrics (`mcp_requests_total`, `mcp_request_duration_seconds`, `mcp_in_flight`,
   * refusals, sessions, the audit trail, process metrics; see `McpMetrics`) in the text format at
   * `path`: on the application's HTTP server, or with `port` on a listener of its own at
   * `host:port` (then not on the main server). Protected like the admin API: a principal with the
   * role `admin` or the scope `mcp:admin` (`Authorization: Bearer <key or token>` or `X-API-Key`),
   * or `Authorization: Bearer <token>` when `token` is set; with `auth: { mode: 'none' }`, loopback
   * callers only (or the token). `false` turns metrics off (nothing is counted, and prom-client
   * is not loaded); so does `http: false` without a `port`, as there is nowhere to serve them.
   * @default { path: '/metrics' } (on the main HTTP server)
   * @example
   * ```ts
   * metrics: { path: '/metrics' }
   * metrics: { port: 9464, host: '0.0.0.0', token: process.env.METRICS_TOKEN } // its own port, for Prometheus with a token
   * metrics: false
   * ```
   */
  metrics?: boolean | { path?: string; port?: number; host?: string; token?: string };
  /**
   * The REST bridge: controller routes that become MCP tools, run through their own guards,
   * interceptors, pipes and filters (docs/rest-bridge.md). Routes marked `@McpExpose` are exposed
   * without it; here, routes are chosen by OpenAPI tag, path pattern or operation id.
   * @example
   * ```ts
   * rest: { routes: { tags: ['tickets'], paths: ['/api/customers/**'] }, exclude: { operationIds: ['importTickets'] } }
   * ```
   */
  rest?: McpRestOptions;
  /**
   * The gateway: upstream MCP servers (Streamable HTTP or stdio) whose tools, prompts and
   * resources join this host's catalog under a namespace each, governed like local entries
   * (docs/gateway.md).
   * @example
   * ```ts
   * gateway: { upstreams: [{ name: 'wiki', transport: { type: 'http', url: 'https://wiki.example/mcp', bearer: process.env.WIKI_TOKEN } }] }
   * ```
   */
  gateway?: McpGatewayOptions;
  /**
   * Virtual servers managed at run time: upstream MCP servers added, changed and removed through
   * the admin API (`<admin>/api/servers`), stored (a file, or PostgreSQL), validated before they
   * apply, applied on every replica, audited (docs/virtual-servers.md). Off by default.
   * @example
   * virtualServers: { store: new PostgresVirtualServersStore({ connectionString }), allowHosts: ['wiki.internal'] }
   */
  virtualServers?: boolean | McpVirtualServersOptions;
  /**
   * Tool search: the meta-tools `search_tools` and `call_tool`, for catalogs too large to list to
   * a model (docs/gateway.md). `true` for the defaults.
   * @example
   * ```ts
   * toolSearch: { limit: 8 }
   * ```
   */
  toolSearch?: boolean | McpToolSearchOptions;
  /**
   * Governance: declarative policies (CEL conditions) on the arguments and results of every kind
   * of entry, and guardrails for personal data and secrets (docs/governance.md).
   * @example
   * ```ts
   * governance: {
   *   policies: [{ id: 'urgent-needs-lead', appliesTo: { names: ['create_ticket'] },
   *     condition: "args.priority != 'urgent' || 'lead' in principal.roles" }],
   *   guardrails: { rules: [{ detectors: ['api-key', 'private-key'], action: 'block' }] },
   * }
   * ```
   */
  governance?: McpGovernanceOptions;
}
