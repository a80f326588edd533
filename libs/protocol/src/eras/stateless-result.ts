import type { McpCacheHints } from '#libs/core';
import type { McpMethodTraits } from '../wire/mcp-method.table';

/** What a 2026-07-28 result of a handler that left it to the engine starts with. */
const COMPLETE = '{"resultType":"complete"';
/**
 * The cache hints of a cacheable result whose handler gave none: fresh for no time, and
 * private, because lists and reads are filtered per caller.
 */
const NO_CACHING = ',"ttlMs":0,"cacheScope":"private"';

/**
 * A handler's result as a 2026-07-28 result: every result carries `resultType`, and cacheable
 * ones (lists, reads, discovery) `ttlMs` and `cacheScope`. A handler that writes these itself
 * starts its JSON with `{"resultType"` and is left as it is (an input-required result, or a
 * list with the cache hints of its entries); the others are completed here, without parsing.
 */
export function statelessResult(json: string, traits: McpMethodTraits): string {
  if (json.startsWith('{"resultType"')) return json;
  const hints = traits.cacheable ? NO_CACHING : '';
  return json === '{}' ? `${COMPLETE}${hints}}` : `${COMPLETE}${hints},${json.slice(1)}`;
}

/**
 * A cacheable result's JSON with `resultType` and the given hints in front, as a handler that
 * writes its own hints returns it (the dispatcher then leaves it as it is). Not parsed.
 */
export function withCacheHints(json: string, hints: McpCacheHints): string {
  const head = `${COMPLETE},"ttlMs":${hints.ttlMs},"cacheScope":"${hints.scope}"`;
  return json === '{}' ? `${head}}` : `${head},${json.slice(1)}`;
}
