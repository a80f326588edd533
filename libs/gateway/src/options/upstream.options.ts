import { optionChecks, type OptionReport } from '#libs/core';
import {
  resolveDownstreamCredential,
  type DownstreamCredential,
  type McpDownstreamCredential,
} from '#libs/downstream-identity';
import { resolvePinOption, type McpPinOption, type PinScope } from '#libs/governance';
import type { OutboundPolicy } from '#libs/security';

/** An upstream reached over Streamable HTTP. */
export interface McpHttpUpstreamTransport {
  type: 'http';
  /** The server's MCP endpoint (`https://wiki.example/mcp`). */
  url: string;
  /** Headers sent with every request (a tenant, an API key). */
  headers?: Record<string, string>;
  /** Sent as `Authorization: Bearer …`: the gateway's own credential, never a caller's. */
  bearer?: string;
  /** The gateway's own token, by the OAuth client credentials grant (instead of `bearer`). */
  oauth?: McpUpstreamOAuth;
}

/**
 * The OAuth 2.1 client credentials the gateway gets its access token for an upstream with.
 * @example
 * ```ts
 * oauth: { tokenUrl: 'https://idp.example/oauth/token', clientId: 'desk-gateway', clientSecret: process.env.GATEWAY_SECRET!, scope: 'mcp', resource: 'https://wiki.example/mcp' }
 * ```
 */
export interface McpUpstreamOAuth {
  /** The authorization server's token endpoint. */
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated scopes asked for. */
  scope?: string;
  /** The upstream the token is for (RFC 8707 resource indicator): its MCP endpoint's URL. */
  resource?: string;
}

/** An upstream the gateway starts as a child process and talks to over stdio. */
export interface McpStdioUpstreamTransport {
  type: 'stdio';
  command: string;
  args?: string[];
  /**
   * The process's environment. Default: a minimal one (PATH, HOME, …): the host's own
   * variables, and so its secrets, are not passed on unless listed here.
   */
  env?: Record<string, string>;
  cwd?: string;
}

/**
 * The protocol revision the gateway speaks with an upstream: `auto` asks the upstream
 * (`server/discover`) and falls back to the 2025 handshake when it does not know the question;
 * a revision speaks that one only (a 2026-07-28 upstream that does not offer it fails to connect).
 */
export type UpstreamProtocolVersion = 'auto' | '2025-11-25' | '2026-07-28';

const PROTOCOL_VERSIONS: readonly UpstreamProtocolVersion[] = ['auto', '2025-11-25', '2026-07-28'];

/** Which of an upstream's entries join the catalog, by their upstream names (`*` matches any run of characters). */
export interface McpUpstreamFilter {
  /** Only these (default: all). */
  allow?: string[];
  /** Never these. */
  deny?: string[];
}

/**
 * One upstream MCP server of the gateway.
 *
 * @example
 * ```ts
 * {
 *   name: 'everything',
 *   transport: { type: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] },
 *   prefix: 'demo', separator: '_',           // demo_echo, demo_get-sum, …
 *   tools: { deny: ['get-env'] },
 *   scopes: ['demo:use'],
 *   required: false,
 *   timeoutMs: 10_000,
 * }
 * ```
 */
export interface McpUpstreamOptions {
  /**
   * Names the upstream in logs, errors, audit records, readiness and resource URIs
   * (`everything+demo://…`): 1–32 letters, digits, `-` or `.`, starting with a letter.
   */
  name: string;
  transport: McpHttpUpstreamTransport | McpStdioUpstreamTransport;
  /** The revision to speak: the one the upstream supports (`auto`), or only the one named. @default 'auto' */
  protocolVersion?: UpstreamProtocolVersion;
  /** Put before each tool's and prompt's name, with `separator`. @default the upstream's name */
  prefix?: string;
  /** Between the prefix and the upstream's own name. @default '__' */
  separator?: string;
  tools?: McpUpstreamFilter;
  prompts?: McpUpstreamFilter;
  /** By URI or URI template. */
  resources?: McpUpstreamFilter;
  /** Scopes a caller must all hold to see and use this upstream's entries. */
  scopes?: string[];
  /** Roles one of which a caller must hold to see and use this upstream's entries. */
  roles?: string[];
  /** Whether readiness fails while the upstream is unreachable. @default true */
  required?: boolean;
  /** The longest one request to the upstream may take (a call, a read, a list). @default 30000 */
  timeoutMs?: number;
  /** Failures in a row that open the circuit, and how long it stays open before one call may try again. */
  circuitBreaker?: { failureThreshold?: number; openMs?: number };
  /** Reconnection (and, for stdio, restart) back-off after the upstream went away. */
  reconnect?: { initialDelayMs?: number; maxDelayMs?: number };
  /**
   * Whether the host has a person confirm calls of the upstream's tools that declare
   * `destructiveHint: true`, as it does local tools with `confirm` (the user in the client, or an
   * approval): `'destructive'` does (the upstream may ask again, if it confirms its own tools);
   * `'none'` leaves it to the upstream. @default 'destructive'
   */
  confirm?: UpstreamConfirmation;
  /**
   * Arguments the upstream's input schemas do not declare: refused by name before the call is
   * relayed, as for local tools (`'refuse'`), dropped (`'strip'`), or relayed for the upstream to
   * judge (`'allow'`, for an upstream whose schemas do not list everything it takes). @default the
   * host's `unknownArguments` ('refuse')
   * @example unknownArguments: 'allow'
   */
  unknownArguments?: 'refuse' | 'strip' | 'allow';
  /**
   * Pins the upstream's catalog: each tool, prompt and resource definition is fingerprinted when
   * first accepted, and one that changes afterwards (description, schema, annotations, title) is
   * quarantined — hidden, its calls refused with the reason — until an approver accepts the
   * difference (admin API or dashboard); with `newEntries: 'hold'`, new entries wait the same way
   * (docs/governance.md, "Pinned catalogs"). Turns governance on. @default false
   * @example pin: { newEntries: 'hold' }
   */
  pin?: McpPinOption;
  /** What the upstream may make the host hold and do; beyond each, the excess is refused, naming the upstream and the limit. */
  limits?: McpUpstreamLimits;
  /**
   * Who the upstream sees on a caller's calls (HTTP upstreams): the gateway itself (`'service'`,
   * with `bearer`, `oauth` or `headers`), the caller by token exchange (`'token-exchange'`: a
   * token for the upstream with the caller as subject and the host as actor), or the person's
   * own connected account (`{ mode: 'user', … }`). The gateway reads the upstream's lists as
   * itself whatever this says. See docs/downstream-identity.md. @default 'service'
   * @example credential: { mode: 'token-exchange', audience: 'https://wiki.example/mcp' }
   */
  credential?: McpDownstreamCredential;
}

/**
 * Which of an upstream's tools the host confirms with a person before they run: those that
 * declare `destructiveHint: true`, or none (the upstream confirms its own).
 * @example
 * ```ts
 * { name: 'desk', transport: { type: 'http', url: 'https://desk.example/mcp' }, confirm: 'none' }
 * ```
 */
export type UpstreamConfirmation = 'destructive' | 'none';

const CONFIRMATIONS: readonly UpstreamConfirmation[] = ['destructive', 'none'];

/**
 * What one upstream may make the host hold and do. An answer larger than `maxResponseBytes` is
 * refused as it arrives (never read whole); a list longer than `maxListEntries` or
 * `maxListPages` is served up to the limit; an entry larger than `maxEntryBytes` is left out.
 * @example
 * ```ts
 * limits: { maxResponseBytes: 2 * 1024 * 1024, maxListEntries: 200, maxConnections: 8 }
 * ```
 */
export interface McpUpstreamLimits {
  /** The most bytes one message from the upstream may take: an answer, one event of a stream, one stdio line. @default 10485760 (10 MiB) */
  maxResponseBytes?: number;
  /** The most entries read of one list (tools, prompts, resources, templates); the rest are left out. @default 1000 */
  maxListEntries?: number;
  /** The most pages read of one list. @default 100 */
  maxListPages?: number;
  /** The most bytes one entry (a tool with its schemas and description, a prompt, a resource) may take as JSON. @default 65536 (64 KiB) */
  maxEntryBytes?: number;
  /**
   * The most connections the gateway's requests hold open to an HTTP upstream; the others wait
   * their turn. (The SDK client's session beside them — handshake, change stream, answers to the
   * upstream's requests — holds at most 4.) @default 32
   */
  maxConnections?: number;
}

/** `McpUpstreamLimits` with the defaults filled in. */
export type UpstreamLimits = Readonly<Required<McpUpstreamLimits>>;

/** The limits' defaults, and the range each may be set in. */
const LIMITS: Readonly<Record<keyof McpUpstreamLimits, { fallback: number; min: number; max: number }>> = {
  maxResponseBytes: { fallback: 10 * 1024 * 1024, min: 1024, max: 1024 * 1024 * 1024 },
  maxListEntries: { fallback: 1_000, min: 1, max: 100_000 },
  maxListPages: { fallback: 100, min: 1, max: 10_000 },
  maxEntryBytes: { fallback: 64 * 1024, min: 256, max: 16 * 1024 * 1024 },
  maxConnections: { fallback: 32, min: 1, max: 1_024 },
};

/** `McpUpstreamOptions` validated, with the defaults filled in. */
export interface UpstreamOptions {
  readonly name: string;
  readonly transport: McpHttpUpstreamTransport | McpStdioUpstreamTransport;
  readonly protocolVersion: UpstreamProtocolVersion;
  readonly prefix: string;
  readonly separator: string;
  readonly tools: Readonly<McpUpstreamFilter>;
  readonly prompts: Readonly<McpUpstreamFilter>;
  readonly resources: Readonly<McpUpstreamFilter>;
  readonly scopes: readonly string[];
  readonly roles: readonly string[];
  readonly required: boolean;
  readonly timeoutMs: number;
  readonly failureThreshold: number;
  readonly openMs: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly confirm: UpstreamConfirmation;
  /** `undefined`: the host's own policy. */
  readonly unknownArguments: 'refuse' | 'strip' | 'allow' | undefined;
  /** `undefined`: not pinned. */
  readonly pin: PinScope | undefined;
  readonly limits: UpstreamLimits;
  /** Who the upstream sees on a caller's calls. */
  readonly credential: DownstreamCredential;
  /** Where the options are (`gateway.upstreams[0]`), for messages. */
  readonly where: string;
  /**
   * Where its connections may go (`McpGateway.addUpstream`'s second argument); `undefined`: as a
   * configured URL may (`OutboundPolicies.configured` of its URLs).
   */
  readonly reach?: OutboundPolicy;
}

const UPSTREAM_KEYS = new Set([
  'name',
  'transport',
  'protocolVersion',
  'prefix',
  'separator',
  'tools',
  'prompts',
  'resources',
  'scopes',
  'roles',
  'required',
  'timeoutMs',
  'circuitBreaker',
  'reconnect',
  'confirm',
  'unknownArguments',
  'pin',
  'limits',
  'credential',
]);
/** Safe in a URI scheme (the gateway's resource URIs are `<name>+<upstream URI>`) and in a tool name. */
const UPSTREAM_NAME = /^[A-Za-z][A-Za-z0-9.-]{0,31}$/;
/** What MCP allows in a tool name, minus what the upstream's own name brings. */
const NAME_PART = /^[A-Za-z0-9_.-]{0,64}$/;

/** Validates one upstream; `undefined` when it is not even an object. */
export function resolveUpstream(given: unknown, where: string, report: OptionReport): UpstreamOptions | undefined {
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    report(
      where,
      'must be an object',
      "e.g. { name: 'wiki', transport: { type: 'http', url: 'https://wiki.example/mcp' } }",
    );
    return undefined;
  }
  const o = given as Record<string, unknown>;
  const check = optionChecks(o, report, `${where}.`);
  check.known(UPSTREAM_KEYS);
  const name = typeof o.name === 'string' ? o.name : '';
  if (!UPSTREAM_NAME.test(name))
    report(
      `${where}.name`,
      'must be 1 to 32 letters, digits, "-" or ".", starting with a letter',
      "e.g. name: 'wiki' (it is part of tool names and resource URIs)",
    );
  const text = (key: 'prefix' | 'separator', fallback: string) => {
    const value = o[key] ?? fallback;
    if (typeof value === 'string' && NAME_PART.test(value)) return value;
    report(`${where}.${key}`, 'must be up to 64 letters, digits, "_", "-" or "."', `e.g. ${key}: '${fallback}'`);
    return fallback;
  };
  const list = (key: 'scopes' | 'roles'): string[] => {
    const value = o[key] ?? [];
    if (Array.isArray(value) && value.every((item) => typeof item === 'string' && item !== '')) return [...value];
    report(`${where}.${key}`, 'must be an array of non-empty strings', `e.g. ${key}: ['wiki:read']`);
    return [];
  };
  const nested = (key: 'circuitBreaker' | 'reconnect' | 'limits'): Record<string, unknown> => {
    const value = o[key] ?? {};
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    report(`${where}.${key}`, 'must be an object', `e.g. ${key}: {}`);
    return {};
  };
  const breaker = optionChecks(nested('circuitBreaker'), report, `${where}.circuitBreaker.`);
  const reconnect = optionChecks(nested('reconnect'), report, `${where}.reconnect.`);
  const limits = nested('limits');
  const limit = optionChecks(limits, report, `${where}.limits.`);
  limit.known(new Set(Object.keys(LIMITS)), 'limits');
  const confirm = o.confirm ?? 'destructive';
  if (!CONFIRMATIONS.includes(confirm as UpstreamConfirmation))
    report(
      `${where}.confirm`,
      `must be 'destructive' or 'none', got ${JSON.stringify(confirm)}`,
      "e.g. confirm: 'none' for an upstream that confirms its own destructive tools",
    );
  const unknownArguments = o.unknownArguments;
  if (unknownArguments !== undefined && !['refuse', 'strip', 'allow'].includes(unknownArguments as string))
    report(
      `${where}.unknownArguments`,
      `must be 'refuse', 'strip' or 'allow', got ${JSON.stringify(unknownArguments)}`,
      "leave it out for the host's own policy, or unknownArguments: 'allow' for an upstream whose schemas do not list everything it takes",
    );
  const protocolVersion = o.protocolVersion ?? 'auto';
  if (!PROTOCOL_VERSIONS.includes(protocolVersion as UpstreamProtocolVersion))
    report(
      `${where}.protocolVersion`,
      `must be one of ${PROTOCOL_VERSIONS.map((v) => `'${v}'`).join(', ')}, got ${JSON.stringify(protocolVersion)}`,
      "e.g. protocolVersion: 'auto' (the upstream's own choice)",
    );
  const prefix = text('prefix', name);
  const separator = text('separator', '__');
  const upstream: UpstreamOptions = {
    name,
    transport: resolveTransport(o.transport, `${where}.transport`, report),
    protocolVersion: protocolVersion as UpstreamProtocolVersion,
    prefix,
    separator,
    tools: resolveFilter(o.tools, `${where}.tools`, report),
    prompts: resolveFilter(o.prompts, `${where}.prompts`, report),
    resources: resolveFilter(o.resources, `${where}.resources`, report),
    scopes: list('scopes'),
    roles: list('roles'),
    required: check.flag('required', true),
    timeoutMs: check.integer('timeoutMs', 30_000, 1, 3_600_000),
    failureThreshold: breaker.integer('failureThreshold', 5, 1, 1_000),
    openMs: breaker.integer('openMs', 30_000, 1, 3_600_000),
    initialDelayMs: reconnect.integer('initialDelayMs', 500, 1, 600_000),
    maxDelayMs: reconnect.integer('maxDelayMs', 30_000, 1, 3_600_000),
    confirm: confirm as UpstreamConfirmation,
    unknownArguments: unknownArguments as UpstreamOptions['unknownArguments'],
    pin: resolvePinOption(o.pin, `${where}.pin`, report),
    limits: Object.fromEntries(
      Object.entries(LIMITS).map(([key, { fallback, min, max }]) => [key, limit.integer(key, fallback, min, max)]),
    ) as unknown as UpstreamLimits,
    credential: resolveDownstreamCredential(
      o.credential,
      `${where}.credential`,
      (o.transport as { url?: unknown } | undefined)?.url as string | undefined,
      report,
    ),
    where,
  };
  if (upstream.credential.mode !== 'service' && upstream.transport.type !== 'http')
    report(
      `${where}.credential`,
      `'${upstream.credential.mode}' needs an HTTP upstream (a stdio process has no caller to tell apart)`,
      "leave credential out (the gateway's own), or reach the upstream over HTTP",
    );
  if (upstream.initialDelayMs > upstream.maxDelayMs)
    report(
      `${where}.reconnect`,
      `initialDelayMs (${upstream.initialDelayMs}) is more than maxDelayMs (${upstream.maxDelayMs})`,
      'make maxDelayMs at least initialDelayMs',
    );
  return upstream;
}

const HTTP_KEYS = new Set(['type', 'url', 'headers', 'bearer', 'oauth']);
const OAUTH_KEYS = new Set(['tokenUrl', 'clientId', 'clientSecret', 'scope', 'resource']);
const STDIO_KEYS = new Set(['type', 'command', 'args', 'env', 'cwd']);

function resolveTransport(value: unknown, where: string, report: OptionReport): UpstreamOptions['transport'] {
  const example =
    "e.g. transport: { type: 'http', url: 'https://wiki.example/mcp' } or { type: 'stdio', command: 'node', args: ['server.js'] }";
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    report(where, 'must be an object', example);
    return { type: 'stdio', command: '' };
  }
  const o = value as Record<string, unknown>;
  const strings = (key: string, record: boolean) => {
    const given = o[key];
    if (given === undefined) return;
    const ok = record
      ? typeof given === 'object' &&
        given !== null &&
        !Array.isArray(given) &&
        Object.values(given).every((v) => typeof v === 'string')
      : Array.isArray(given) && given.every((v) => typeof v === 'string');
    if (!ok)
      report(
        `${where}.${key}`,
        record ? 'must be an object of strings' : 'must be an array of strings',
        record
          ? `e.g. ${key}: { NAME: 'value' }; is an environment variable it comes from unset?`
          : `e.g. ${key}: ['--port', '0']`,
      );
  };
  if (o.type === 'http') {
    optionChecks(o, report, `${where}.`).known(HTTP_KEYS);
    if (!isHttpUrl(o.url))
      report(
        `${where}.url`,
        `must be an absolute http(s) URL, got ${JSON.stringify(o.url)}`,
        "e.g. url: 'https://wiki.example/mcp'",
      );
    strings('headers', true);
    if ('bearer' in o && (typeof o.bearer !== 'string' || o.bearer === ''))
      report(
        `${where}.bearer`,
        'must be a non-empty string',
        'e.g. bearer: process.env.WIKI_TOKEN; is the environment variable set?',
      );
    if ('oauth' in o) resolveOAuth(o.oauth, `${where}.oauth`, report);
    if ('oauth' in o && 'bearer' in o)
      report(where, 'has both bearer and oauth, which both set Authorization', 'keep the one the upstream expects');
    return o as unknown as McpHttpUpstreamTransport;
  }
  if (o.type === 'stdio') {
    optionChecks(o, report, `${where}.`).known(STDIO_KEYS);
    if (typeof o.command !== 'string' || o.command.trim() === '')
      report(`${where}.command`, 'must be the program to start', "e.g. command: 'node', args: ['dist/server.js']");
    strings('args', false);
    strings('env', true);
    if (o.cwd !== undefined && typeof o.cwd !== 'string')
      report(`${where}.cwd`, 'must be a directory path', "e.g. cwd: '/srv/wiki'");
    return o as unknown as McpStdioUpstreamTransport;
  }
  report(`${where}.type`, `must be 'http' or 'stdio', got ${JSON.stringify(o.type)}`, example);
  return { type: 'stdio', command: '' };
}

function resolveOAuth(value: unknown, where: string, report: OptionReport): void {
  const example =
    "e.g. oauth: { tokenUrl: 'https://idp.example/token', clientId: 'gateway', clientSecret: process.env.GATEWAY_SECRET }";
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return report(where, 'must be an object', example);
  const o = value as Record<string, unknown>;
  optionChecks(o, report, `${where}.`).known(OAUTH_KEYS);
  if (!isHttpUrl(o.tokenUrl))
    report(`${where}.tokenUrl`, `must be an absolute http(s) URL, got ${JSON.stringify(o.tokenUrl)}`, example);
  for (const key of ['clientId', 'clientSecret'] as const)
    if (typeof o[key] !== 'string' || o[key] === '')
      report(
        `${where}.${key}`,
        'must be a non-empty string',
        `e.g. ${key}: process.env.GATEWAY_${key === 'clientId' ? 'CLIENT_ID' : 'SECRET'}; is the environment variable set?`,
      );
  if (o.scope !== undefined && typeof o.scope !== 'string')
    report(`${where}.scope`, 'must be a space-separated string', "e.g. scope: 'mcp wiki:read'");
  if (o.resource !== undefined && !isHttpUrl(o.resource))
    report(
      `${where}.resource`,
      "must be the upstream endpoint's absolute URL",
      "e.g. resource: 'https://wiki.example/mcp'",
    );
}

function resolveFilter(value: unknown, where: string, report: OptionReport): McpUpstreamFilter {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    report(where, 'must be { allow?, deny? }', "e.g. { deny: ['delete_*'] }");
    return {};
  }
  const out: McpUpstreamFilter = {};
  for (const [key, list] of Object.entries(value)) {
    if (key !== 'allow' && key !== 'deny') report(`${where}.${key}`, 'is not a known option', 'use allow or deny');
    else if (!Array.isArray(list) || list.some((item) => typeof item !== 'string' || item === ''))
      report(`${where}.${key}`, 'must be an array of names or patterns', `e.g. ${key}: ['search_*']`);
    else out[key] = [...(list as string[])];
  }
  return out;
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}
