import type { SearchableTool, ToolSearchHit } from './searchable-tool';

/**
 * What a search asks for besides its query.
 * @example
 * ```ts
 * const visible = new Set(toolsTheCallerMayList.map(({ name }) => name));
 * const options: ToolRankerSearchOptions = { limit: 5, filter: (name) => visible.has(name) };
 * ```
 */
export interface ToolRankerSearchOptions {
  /** At most this many hits are returned (a limit below 1 returns none). */
  limit: number;
  /**
   * Whether the caller may see a tool: how authorization reaches a search, since one index
   * serves every caller. Applied best match first, before the top `limit` is taken, so a hidden
   * tool is never returned and never takes the place of a visible one. Called synchronously
   * with the matching tools, best first, until `limit` hits are found (a hybrid ranker asks
   * once per ranking it fuses): decide with what is at hand (the set of names the caller may
   * list, computed once per caller), not with I/O.
   */
  filter?: (name: string) => boolean;
}

/**
 * Ranks the tools of a catalog against a natural-language query, for a search meta-tool that
 * spares the model the full list. `Bm25ToolRanker` is the default; give another (a semantic
 * ranker, say) as the `toolSearch.ranker` option of `McpModule`.
 * @example
 * ```ts
 * ranker.index(catalog);
 * const hits = await ranker.search('open a support ticket', { limit: 5, filter: (name) => canCall(name) });
 * ```
 */
export interface McpToolRanker {
  /** Replaces the whole index with these tools (a later tool with the same name wins). */
  index(tools: readonly SearchableTool[]): void;
  /** The best `limit` tools the filter lets through, best first, ties in name order. */
  search(query: string, options: ToolRankerSearchOptions): ToolSearchHit[] | Promise<ToolSearchHit[]>;
}
