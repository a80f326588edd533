import type { OptionReport } from '#libs/core';
import { resolveRouteRules, type McpRestRouteRules } from './route-rules.options';

/**
 * Which exposed writes (POST, PUT, PATCH, DELETE) have a person confirm each call before it runs
 * when nothing more specific decides: `'destructive'` — DELETE and the operations marked
 * destructive (`x-mcp-annotations`, `@McpExpose({ annotations })`); `'writes'` — every write;
 * `'none'` — none (a `destructiveHint` tool still asks under the host's `confirmDestructive`).
 *
 * @example
 * ```ts
 * McpModule.forRoot({ name: 'desk', version: '1.0.0', rest: { routes: { tags: ['tickets'] }, confirm: 'writes' } })
 * ```
 */
export type McpRestConfirmPolicy = 'destructive' | 'writes' | 'none';

/**
 * How REST-derived tools are confirmed (the `confirm` option of `rest` and of each `rest.apis`
 * entry). An operation's own word wins (`@McpExpose({ confirm })` on a route), then `ask` and
 * `skip`, then `writes`. A write that then runs without asking, with none of these saying so
 * (`writes` not given), is listed at start-up with the fix: a warning, or an error with
 * `undecided: 'error'`.
 *
 * @example
 * ```ts
 * rest: {
 *   routes: { tags: ['tickets'] },
 *   confirm: { ask: { operationIds: ['closeTicket'] }, skip: { operationIds: ['createTicket', 'updateTicket'] } },
 * }
 * rest: { apis: [{ name: 'petstore', document: './petstore.yaml', confirm: 'writes' }] }
 * ```
 */
export interface McpRestConfirmOptions {
  /** The writes that ask when neither the route nor a rule decides. @default 'destructive' */
  writes?: McpRestConfirmPolicy;
  /** Operations that ask before every call (`tags`, `paths`, `operationIds`); over `skip`. */
  ask?: McpRestRouteRules;
  /**
   * Operations that run without asking, as `@McpExpose({ confirm: false })` says it (even a
   * destructive one under the host's `confirmDestructive`): decided, so not listed at start-up.
   */
  skip?: McpRestRouteRules;
  /** What start-up does with writes that run without asking and that nothing decided. @default 'warn' */
  undecided?: 'warn' | 'error';
}

/** `McpRestConfirmOptions` validated. */
export interface RestConfirmOptions {
  readonly writes: McpRestConfirmPolicy;
  /** Whether `writes` was given (then every write is decided). */
  readonly writesDecided: boolean;
  readonly ask: McpRestRouteRules | undefined;
  readonly skip: McpRestRouteRules | undefined;
  readonly undecided: 'warn' | 'error';
}

/** The default: DELETE and destructive operations ask, other writes are listed at start-up. */
export const DEFAULT_REST_CONFIRM: RestConfirmOptions = {
  writes: 'destructive',
  writesDecided: false,
  ask: undefined,
  skip: undefined,
  undecided: 'warn',
};

const POLICIES: readonly McpRestConfirmPolicy[] = ['destructive', 'writes', 'none'];
const KEYS = new Set(['writes', 'ask', 'skip', 'undecided']);

/**
 * Validates a `confirm` option (`rest.confirm`, `rest.apis[0].confirm`).
 * @param where the option's path, for messages
 * @param inherited what applies when it is not given (an API inherits `rest.confirm`)
 */
export function resolveRestConfirm(
  value: unknown,
  where: string,
  report: OptionReport,
  inherited: RestConfirmOptions = DEFAULT_REST_CONFIRM,
): RestConfirmOptions {
  if (value === undefined) return inherited;
  if (typeof value === 'string') return { ...inherited, ...policyOf(value, where, report) };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    report(
      where,
      "must be 'destructive', 'writes', 'none' or { writes, ask, skip, undecided }",
      "e.g. confirm: 'writes', or confirm: { ask: { operationIds: ['closeTicket'] } }",
    );
    return inherited;
  }
  const given = value as Record<string, unknown>;
  for (const key of Object.keys(given))
    if (!KEYS.has(key))
      report(`${where}.${key}`, 'is not a known option', `remove it; known options are: ${[...KEYS].join(', ')}`);
  const undecided = given.undecided ?? inherited.undecided;
  if (undecided !== 'warn' && undecided !== 'error')
    report(
      `${where}.undecided`,
      `must be 'warn' or 'error', not ${JSON.stringify(undecided)}`,
      "leave it out for 'warn'",
    );
  return {
    ...inherited,
    ...(given.writes !== undefined && policyOf(given.writes, `${where}.writes`, report)),
    ask: resolveRouteRules(given.ask, `${where}.ask`, report),
    skip: resolveRouteRules(given.skip, `${where}.skip`, report),
    undecided: undecided === 'error' ? 'error' : 'warn',
  };
}

function policyOf(value: unknown, where: string, report: OptionReport): Partial<RestConfirmOptions> {
  if (POLICIES.includes(value as McpRestConfirmPolicy))
    return { writes: value as McpRestConfirmPolicy, writesDecided: true };
  report(
    where,
    `must be 'destructive', 'writes' or 'none', not ${JSON.stringify(value)}`,
    "'writes': every POST, PUT, PATCH and DELETE asks; 'destructive': DELETE and operations marked destructive",
  );
  return {};
}
