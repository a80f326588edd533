import type { McpCacheOptions, McpCacheScope } from '../interfaces/mcp-cache-options.interface';

/** A `cache` option once validated: both hints known. */
export interface McpCacheHints {
  readonly ttlMs: number;
  readonly scope: McpCacheScope;
}

const KEYS: ReadonlySet<string> = new Set(['ttlMs', 'scope']);
const EXAMPLE = "cache: { ttlMs: 60_000, scope: 'public' }";

/**
 * Reads a `cache` option (of `@McpTool`, `@McpPrompt`, `@McpResource`, `@McpResourceTemplate` or
 * the module), reporting every problem with how to fix it.
 * @returns the hints, or `undefined` when the option is absent or wrong
 * @internal for the catalog's definition factories and the engine's option resolver
 */
export function readCacheOption(
  value: McpCacheOptions | unknown,
  report: (problem: string, fix: string) => void,
): McpCacheHints | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    report(`must be an object { ttlMs, scope }, got ${JSON.stringify(value)}`, `e.g. ${EXAMPLE}`);
    return undefined;
  }
  const { ttlMs, scope = 'private' } = value as Record<string, unknown>;
  let valid = true;
  if (typeof ttlMs !== 'number' || !Number.isSafeInteger(ttlMs) || ttlMs < 0) {
    report(`ttlMs must be an integer ≥ 0 (milliseconds), got ${JSON.stringify(ttlMs)}`, `e.g. ${EXAMPLE}`);
    valid = false;
  }
  if (scope !== 'public' && scope !== 'private') {
    report(
      `scope must be 'public' or 'private', got ${JSON.stringify(scope)}`,
      "use scope: 'private' (the default) or 'public'",
    );
    valid = false;
  }
  for (const key of Object.keys(value)) {
    if (!KEYS.has(key)) {
      report(`"${key}" is not a cache hint`, 'keep ttlMs and scope only');
      valid = false;
    }
  }
  return valid ? Object.freeze({ ttlMs: ttlMs as number, scope: scope as McpCacheScope }) : undefined;
}
