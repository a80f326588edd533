import { Inject } from '@nestjs/common';
import type { McpPrincipal, OptionReport } from '#libs/core';
import { resolveRouteRules, TOOL_PREFIX, type McpRestRouteRules } from './route-rules.options';
import { resolveRestApis, type McpRestApiOptions, type RestApiOptions } from './rest-api.options';
import {
  DEFAULT_REST_CONFIRM,
  resolveRestConfirm,
  type McpRestConfirmOptions,
  type McpRestConfirmPolicy,
  type RestConfirmOptions,
} from './rest-confirm.options';

/**
 * The REST bridge: controller routes that become MCP tools (option `rest` of `McpModule`).
 * Nothing is exposed unless chosen: by `@McpExpose` on the controller or route, or by `routes`.
 *
 * @example
 * ```ts
 * McpModule.forRoot({
 *   name: 'desk', version: '1.0.0',
 *   rest: {
 *     routes: { tags: ['tickets'] },
 *     exclude: { operationIds: ['importTickets'] },
 *     prefix: 'api_',
 *     confirm: { ask: { operationIds: ['closeTicket'] }, skip: { operationIds: ['createTicket'] } },
 *   },
 * })
 * ```
 */
export interface McpRestOptions {
  /** Routes exposed besides those marked `@McpExpose` (none by default). */
  routes?: McpRestRouteRules;
  /** Routes never exposed, even when marked or chosen by `routes`. */
  exclude?: McpRestRouteRules;
  /**
   * Where names, descriptions and schemas come from: `'swagger'` — the document `@nestjs/swagger`
   * builds of the app (required installed); `'routes'` — the routes' parameters and DTOs only;
   * `'auto'` (default) — Swagger when installed, else the routes.
   */
  metadata?: 'auto' | 'swagger' | 'routes';
  /** Put before every REST tool's name (`api_` → `api_getTicket`). */
  prefix?: string;
  /**
   * Which exposed writes a person confirms before they run (see `McpRestConfirmOptions`):
   * `'destructive'`, `'writes'`, `'none'`, or `{ writes, ask, skip, undecided }`. By default
   * DELETE and destructive operations ask, and every other write that nothing decided (a route's
   * `@McpExpose({ confirm })`, an `ask` or `skip` rule, `writes`) is listed in a start-up warning.
   * `rest.apis` inherit it unless they set their own.
   * @default 'destructive', with undecided writes listed
   */
  confirm?: McpRestConfirmPolicy | McpRestConfirmOptions;
  /**
   * What the route finds on `request.user` when an MCP caller calls it (default: the MCP
   * principal, `{ id, scopes, roles, claims }`), so that its guards see the caller as they
   * would see an HTTP client their authentication middleware let in.
   */
  user?: (principal: McpPrincipal) => unknown;
  /**
   * External REST APIs whose OpenAPI document becomes tools, each call made over HTTP with the
   * API's own credentials (none by default). See `McpRestApiOptions`.
   */
  apis?: McpRestApiOptions[];
}

/** `McpRestOptions` validated. */
export interface RestOptions {
  readonly routes: McpRestRouteRules | undefined;
  readonly exclude: McpRestRouteRules | undefined;
  readonly metadata: 'auto' | 'swagger' | 'routes';
  readonly prefix: string;
  readonly user: (principal: McpPrincipal) => unknown;
  readonly apis: readonly RestApiOptions[];
  readonly confirm: RestConfirmOptions;
}

/** Token of the resolved `RestOptions`. */
export const MCP_REST_OPTIONS = Symbol('MCP:REST_OPTIONS');

/** Injects the `RestOptions`. */
export const InjectRestOptions = (): ParameterDecorator => Inject(MCP_REST_OPTIONS);

/** The options of `McpModule` this slice reads. */
export const REST_OPTION_KEYS = ['rest'] as const;

export type { McpRestRouteRules, McpRestConfirmOptions, McpRestConfirmPolicy };

const REST_KEYS = new Set(['routes', 'exclude', 'metadata', 'prefix', 'user', 'apis', 'confirm']);

/**
 * Validates the `rest` option.
 * @param report called once per problem, with how to fix it
 */
export function resolveRestOptions(o: Record<string, unknown>, report: OptionReport): RestOptions {
  const rest = o.rest;
  const resolved: RestOptions = {
    routes: undefined,
    exclude: undefined,
    metadata: 'auto',
    prefix: '',
    user: (principal) => principal,
    apis: [],
    confirm: DEFAULT_REST_CONFIRM,
  };
  if (rest === undefined) return resolved;
  if (typeof rest !== 'object' || rest === null || Array.isArray(rest)) {
    report('rest', 'must be an object', "e.g. rest: { routes: { tags: ['tickets'] } }, or leave it out");
    return resolved;
  }
  const given = rest as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (!REST_KEYS.has(key))
      report(`rest.${key}`, 'is not a known option', `remove it; known options are: ${[...REST_KEYS].join(', ')}`);
  }
  const metadata = given.metadata ?? 'auto';
  if (metadata !== 'auto' && metadata !== 'swagger' && metadata !== 'routes')
    report(
      'rest.metadata',
      `must be 'auto', 'swagger' or 'routes', not ${JSON.stringify(metadata)}`,
      "leave it out for 'auto'",
    );
  const prefix = given.prefix ?? '';
  if (typeof prefix !== 'string' || !TOOL_PREFIX.test(prefix))
    report('rest.prefix', 'must be up to 64 letters, digits, "_", "-" or "."', "e.g. prefix: 'api_'");
  const user = given.user ?? resolved.user;
  if (typeof user !== 'function')
    report(
      'rest.user',
      'must be a function of the MCP principal',
      'e.g. user: (principal) => ({ id: principal.id, roles: principal.roles })',
    );
  const confirm = resolveRestConfirm(given.confirm, 'rest.confirm', report);
  return {
    routes: resolveRouteRules(given.routes, 'rest.routes', report),
    exclude: resolveRouteRules(given.exclude, 'rest.exclude', report),
    // An API inherits the policy; the rules of rest.confirm name the app's own routes.
    apis: resolveRestApis(given.apis, report, { ...confirm, ask: undefined, skip: undefined }),
    confirm,
    metadata: metadata as RestOptions['metadata'],
    prefix: typeof prefix === 'string' ? prefix : '',
    user: typeof user === 'function' ? (user as RestOptions['user']) : resolved.user,
  };
}
