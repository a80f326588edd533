// Tool search: the meta-tools search_tools and call_tool (the toolSearch option of McpModule) and
// the rankers behind them. Exports what hosting assembles and what libs/index.ts makes public; the
// rankers' options, tokenizer and helpers stay inside.
export { McpToolSearch } from './mcp-tool-search';
export {
  MCP_TOOL_SEARCH_OPTIONS,
  resolveToolSearchOptions,
  TOOL_SEARCH_OPTION_KEYS,
  type McpToolSearchOptions,
  type ToolSearchOptions,
} from './tool-search.options';
export { TOOL_CALL_RELAY, type ToolCallRelay } from './tool-call-relay';
export { Bm25ToolRanker } from './rankers/bm25-tool-ranker';
export { EmbeddingToolRanker, type McpTextEmbedder } from './rankers/embedding-tool-ranker';
export type { McpToolRanker } from './rankers/tool-ranker';
export type { SearchableTool, ToolSearchHit } from './rankers/searchable-tool';
