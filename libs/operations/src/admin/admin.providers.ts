import type { Provider } from '@nestjs/common';
import { PromptRegistry, ResourceRegistry, ToolRegistry } from '#libs/catalog';
import { MCP_OPERATIONS_OPTIONS, type OperationsOptions } from '../options/operations.options';
import { McpCallHistory } from '../stats/mcp-call-history';
import { McpCallStats } from '../stats/mcp-call-stats';
import { catalogEntryOf } from '../stats/catalog-entry';

/**
 * `McpCallStats`, part of `McpModule` (public: inject it to read the statistics). It counts
 * requests only while the admin dashboard is mounted and on (`AdminEndpoint` registers it).
 */
export const CALL_STATS_PROVIDER: Provider = {
  provide: McpCallStats,
  useFactory: (options: OperationsOptions, tools: ToolRegistry, prompts: PromptRegistry, resources: ResourceRegistry) =>
    new McpCallStats({
      windowMs: options.admin?.statsWindowMs ?? 5 * 60_000,
      entryOf: catalogEntryOf(tools, prompts, resources),
    }),
  inject: [MCP_OPERATIONS_OPTIONS, ToolRegistry, PromptRegistry, ResourceRegistry],
};

/** `McpCallHistory`: the last hour of tool calls for the dashboard's charts (counting while the dashboard is on). */
export const CALL_HISTORY_PROVIDER: Provider = {
  provide: McpCallHistory,
  useFactory: (tools: ToolRegistry) => new McpCallHistory((name) => tools.has(name)),
  inject: [ToolRegistry],
};
