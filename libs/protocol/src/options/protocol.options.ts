import { Inject } from '@nestjs/common';
import { optionChecks, readCacheOption, type McpCacheHints, type OptionReport } from '#libs/core';
import { DEFAULT_REQUEST_LIMITS, type RequestLimits } from '../wire/request-limits';

/** What the protocol engine needs of the module's options: the server, its sessions, lists, calls and tasks. */
export interface ProtocolOptions {
  /** Announced in the `initialize` result. */
  server: { name: string; version: string; title: string | undefined; instructions: string | undefined };
  mode: 'stateful' | 'stateless';
  /** Items per page of every list. */
  pageSize: number;
  limits: RequestLimits;
  sessions: { idleTtlMs: number; max: number; maxPerPrincipal: number; maxSubscriptions: number };
  tools: { timeoutMs: number; confirmDestructive: boolean };
  tasks: { ttlMs: number };
  /** The caching hints of entries without a `cache` option of their own (2026-07-28 results); none: not configured. */
  cache: McpCacheHints | undefined;
}

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
  const tasks = { ttlMs: check.integer('taskTtlMs', 3_600_000, 1_000) };
  const timeoutMs = check.integer('toolTimeoutMs', 30_000, 1);
  const confirmDestructive = check.flag('confirmDestructive', false);
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
    cache,
  };
}
