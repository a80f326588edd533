import type { OptionReport } from '#libs/core';

/** Routes chosen by what their OpenAPI description says; a route matching any rule is chosen. */
export interface McpRestRouteRules {
  /** OpenAPI tags (`@ApiTags`). */
  tags?: string[];
  /** Path patterns over the OpenAPI path: `*` one segment, `**` any number (`/api/tickets/**`). */
  paths?: string[];
  /** Operation ids (`@ApiOperation({ operationId })`, else `Controller_method`). */
  operationIds?: string[];
}

const RULE_KEYS = ['tags', 'paths', 'operationIds'] as const;

/** What a tool name prefix may hold (`api_`, `petstore.`). */
export const TOOL_PREFIX = /^[A-Za-z0-9_.-]{0,64}$/;

/**
 * Validates a set of route rules (`rest.routes`, `rest.apis[0].operations`, …).
 * @param where the option's path, for messages
 */
export function resolveRouteRules(value: unknown, where: string, report: OptionReport): McpRestRouteRules | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    report(
      where,
      'must be an object',
      "e.g. { tags: ['tickets'], paths: ['/api/tickets/**'], operationIds: ['getTicket'] }",
    );
    return undefined;
  }
  const out: McpRestRouteRules = {};
  for (const [key, list] of Object.entries(value)) {
    if (!(RULE_KEYS as readonly string[]).includes(key)) {
      report(`${where}.${key}`, 'is not a known rule', `use ${RULE_KEYS.join(', ')}`);
    } else if (!Array.isArray(list) || list.some((item) => typeof item !== 'string' || item === '')) {
      report(
        `${where}.${key}`,
        'must be an array of non-empty strings',
        `e.g. ${key}: ['${key === 'paths' ? '/api/tickets/**' : 'tickets'}']`,
      );
    } else {
      out[key as (typeof RULE_KEYS)[number]] = [...(list as string[])];
    }
  }
  return out;
}
