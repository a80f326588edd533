/**
 * Who may share a cached result: `public` — it is the same for every caller, so any client,
 * gateway or proxy may serve it to anyone; `private` — only within the caller's own
 * authorization context (the same access token).
 */
export type McpCacheScope = 'public' | 'private';

/**
 * Caching hints for 2026-07-28 clients: the `ttlMs` and `cacheScope` of `tools/list`,
 * `prompts/list`, `resources/list`, `resources/templates/list` and `resources/read` results.
 * 2025-era clients get no hints. The host never marks a result `public` that some caller could
 * not see: an entry restricted by `@RequireScopes`/`@Roles` (or a list holding one) is `private`.
 *
 * @example
 * ```ts
 * @McpTool({ description: 'Looks up a country code', cache: { ttlMs: 3_600_000, scope: 'public' } })
 * ```
 */
export interface McpCacheOptions {
  /** How long a client may consider the result fresh, in milliseconds (an integer ≥ 0; 0: always re-fetch). */
  ttlMs: number;
  /** Who may share the cached result. @default 'private' */
  scope?: McpCacheScope;
}
