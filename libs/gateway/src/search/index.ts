// Tool search: rank a large catalog against a natural-language query, for a search meta-tool.
// Every name exported here is meant for the gateway's barrel; the tokenizer and the helpers of
// searchable-tool.ts stay internal to this folder.
export { Bm25ToolRanker } from './bm25-tool-ranker';
export type { Bm25ToolRankerOptions } from './bm25-tool-ranker';
export { EmbeddingToolRanker } from './embedding-tool-ranker';
export type { EmbeddingToolRankerOptions, McpTextEmbedder } from './embedding-tool-ranker';
export type { SearchableTool, ToolSearchHit } from './searchable-tool';
export type { McpToolRanker, ToolRankerSearchOptions } from './tool-ranker';
export { ToolSearchMessages } from './tool-search.messages';
export type { ToolField } from './tool-text';
