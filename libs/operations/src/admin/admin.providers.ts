import type { Provider } from '@nestjs/common';
import { PromptRegistry, ResourceRegistry, ToolRegistry } from '#libs/catalog';
import { MCP_OPERATIONS_OPTIONS, type OperationsOptions } from '../operations.options';
import type { McpEntryKind } from '#libs/protocol';
import { McpCallStats } from './mcp-call-stats';

/**
 * The entry a request's target counts for: the tool or prompt itself, the fixed resource, or
 * the URI template a resource URI matched; `undefined` for names the catalog does not have.
 */
export function catalogEntryOf(tools: ToolRegistry, prompts: PromptRegistry, resources: ResourceRegistry) {
  return (kind: McpEntryKind, target: string): string | undefined => {
    switch (kind) {
      case 'tool':
        return tools.has(target) ? target : undefined;
      case 'prompt':
        return prompts.has(target) ? target : undefined;
      case 'resource': {
        if (resources.resources.has(target)) return target;
        const resolved = resources.resolve(target);
        return resolved?.kind === 'template' ? resolved.handler.template.template : undefined;
      }
      default:
        return undefined;
    }
  };
}

/**
 * `McpCallStats`, part of `McpModule` (public: inject it to read the statistics). It counts
 * requests only while the admin dashboard is mounted and on (`AdminEndpoint` registers it).
 */
export const CALL_STATS_PROVIDER: Provider = {
  provide: McpCallStats,
  useFactory: (options: OperationsOptions, tools: ToolRegistry, prompts: PromptRegistry, resources: ResourceRegistry) =>
    new McpCallStats({ windowMs: options.admin?.statsWindowMs ?? 5 * 60_000, entryOf: catalogEntryOf(tools, prompts, resources) }),
  inject: [MCP_OPERATIONS_OPTIONS, ToolRegistry, PromptRegistry, ResourceRegistry],
};
