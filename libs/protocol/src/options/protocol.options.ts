import { Inject } from '@nestjs/common';
import { optionChecks, readCacheOption, type McpCacheHints, type OptionReport } from '#libs/core';
import { DEFAULT_REQUEST_LIMITS, type RequestLimits } from '../wire/request-limits';

/** What the protocol engine needs of the module's options: the server, its sessions, lists, calls and tasks. */
export interface ProtocolOptions {
  /** Announced in the `initialize` result. */
  server: {
    name: string;
    version: string;
    title: string | undefined;
    instructions: string | undefined;
    /** Extensions the host's other libraries offer (enterprise-managed authorization), announced in `capabilities.extensions`. */
    extensions?: Readonly<Record<string, object>>;
  };
  mode: 'stateful' | 'stateless';
  /** Items per page of every list. */
  pageSize: number;
  limits: RequestLimits;
  sessions: { idleTtlMs: number; max: number; maxPerPrincipal: number; maxSubscriptions: number };
  tools: { timeoutMs: number; confirmDestructive: boolean };
  /** `maxPerPrincipal`: tasks one principal may hold in this process (running, or ended and kept). */
  tasks: { ttlMs: number; maxPerPrincipal: number };
  /**
   * How the state of a multi round-trip request is sealed: `secrets` (the first seals, each
   * opens) or, when none is configured, a random key of this process; `ttlMs`, how long a state
   * may be brought back.
   */
  requestState: { secrets: readonly string[] | undefined; ttlMs: number };
  /** The caching hints of entries without a `cache` option of their own (2026-07-28 results); none: not configured. */
  cache: McpCacheHints | undefined;
}

/** Shortest `requestState.secret` accepted (bytes of UTF-8): as much entropy as the AES-256 key it keys. */
export const MIN_REQUEST_STATE_SECRET_BYTES = 32;

/** Token of the resolved `ProtocolOptions`. */
export const MCP_PROTOCOL_OPTIONS = Symbol('MCP:PROTOCOL_OPTIONS');

/** Injects the `ProtocolOptions`. */
export const InjectProtocolOptions = (): ParameterDecorator => Inject(MCP_PROTOCOL_OPTIONS);

/** The options of `McpModule` this slice reads. */
export const PROTOCOL_OPTION_KEYS = [
  'name',
  'version',
  'title',
  'instructions',
  'mode',
  'pageSize',
  'limits',
  'sessionIdleTtlMs',
  'maxSessions',
  'maxSessionsPerPrincipal',
  'maxSubscriptionsPerSession',
  'toolTimeoutMs',
  'confirmDestructive',
  'taskTtlMs',
  'maxTasksPerPrincipal',
  'requestState',
  'cache',
] as const;

/**
 * Validates the protocol engine's options and merges their defaults.
 * @param report called once per problem, with how to fix it
 */
export function resolveProtocolOptions(o: Record<string, unknown>, report: OptionReport): ProtocolOptions {
  const check = optionChecks(o, report);
  const text = (key: 'name' | 'version', example: string) => {
    if (typeof o[key] !== 'string' || !(o[key] as string).trim())
      report(key, 'is required and must be a non-empty string', `set it, e.g. ${key}: '${example}'`);
    return o[key] as string;
  };
  const name = text('name', 'support-desk');
  const version = text('version', '1.0.0');
  for (const key of ['title', 'instructions'] as const) {
    if (o[key] !== undefined && typeof o[key] !== 'string')
      report(key, 'must be a string', `give a string or leave ${key} out`);
  }
  const mode = o.mode ?? 'stateful';
  if (mode !== 'stateful' && mode !== 'stateless')
    report('mode', `"${String(mode)}" is not a mode`, "use 'stateful' or 'stateless'");
  const sessions = {
    idleTtlMs: check.integer('sessionIdleTtlMs', 30 * 60_000, 1_000),
    max: check.integer('maxSessions', 10_000, 1),
    maxPerPrincipal: check.integer('maxSessionsPerPrincipal', 100, 1),
    maxSubscriptions: check.integer('maxSubscriptionsPerSession', 100, 1),
  };
  const pageSize = check.integer('pageSize', 100, 1);
  const tasks = {
    ttlMs: check.integer('taskTtlMs', 3_600_000, 1_000),
    maxPerPrincipal: check.integer('maxTasksPerPrincipal', 100, 1),
  };
  const timeoutMs = check.integer('toolTimeoutMs', 30_000, 1);
  const confirmDestructive = check.flag('confirmDestructive', false);
  const requestState = resolveRequestState(o.requestState, report);
  const cache = readCacheOption(o.cache, (problem, fix) => report('cache', problem, fix));
  const limits = { ...DEFAULT_REQUEST_LIMITS, ...((o.limits as Partial<RequestLimits> | undefined) ?? {}) };
  for (const [key, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || (value as number) < 1) {
      report(
        `limits.${key}`,
        `must be an integer ≥ 1, got ${JSON.stringify(value)}`,
        `omit it for the default (${DEFAULT_REQUEST_LIMITS[key as keyof RequestLimits]})`,
      );
    }
  }
  return {
    server: { name, version, title: o.title as string | undefined, instructions: o.instructions as string | undefined },
    mode: mode as ProtocolOptions['mode'],
    pageSize,
    limits,
    sessions,
    tools: { timeoutMs, confirmDestructive },
    tasks,
    requestState,
    cache,
  };
}

const REQUEST_STATE_KEYS: ReadonlySet<string> = new Set(['secret', 'ttlMs']);
const SECRET_FIX =
  'give every replica the same random secret of at least 32 bytes, e.g. ' +
  'requestState: { secret: process.env.MCP_REQUEST_STATE_SECRET } with the output of `openssl rand -base64 48`';

function resolveRequestState(given: unknown, report: OptionReport): ProtocolOptions['requestState'] {
  const fallback = { secrets: undefined, ttlMs: 600_000 };
  if (given === undefined) return fallback;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    report('requestState', 'must be an object', `e.g. requestState: { secret: process.env.MCP_REQUEST_STATE_SECRET }`);
    return fallback;
  }
  const o = given as Record<string, unknown>;
  const check = optionChecks(o, report, 'requestState.');
  check.known(REQUEST_STATE_KEYS);
  const ttlMs = check.integer('ttlMs', fallback.ttlMs, 1_000);
  if (o.secret === undefined) return { secrets: undefined, ttlMs };
  const secrets = Array.isArray(o.secret) ? (o.secret as unknown[]) : [o.secret];
  if (secrets.length === 0) report('requestState.secret', 'is an empty list', SECRET_FIX);
  secrets.forEach((secret, index) => {
    const where = Array.isArray(o.secret) ? `requestState.secret[${index}]` : 'requestState.secret';
    if (typeof secret !== 'string') report(where, 'must be a string', SECRET_FIX);
    else if (Buffer.byteLength(secret) < MIN_REQUEST_STATE_SECRET_BYTES)
      report(
        where,
        `is ${Buffer.byteLength(secret)} bytes long; at least ${MIN_REQUEST_STATE_SECRET_BYTES} are needed`,
        SECRET_FIX,
      );
  });
  return { secrets: secrets.filter((secret): secret is string => typeof secret === 'string'), ttlMs };
}
