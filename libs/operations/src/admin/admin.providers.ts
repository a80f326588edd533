import type { Provider } from '@nestjs/common';
import { PromptRegistry, ResourceRegistry, ToolRegistry } from '#libs/catalog';
import { MCP_OPERATIONS_OPTIONS, type OperationsOptions } from '../options/operations.options';
import { AdminAccess } from '../access/admin-access';
import { AdminApi } from './admin-api';
import { AdminCatalogReader } from './admin-catalog.reader';
import { AdminEndpoint } from './admin.endpoint';
import { McpCallStats } from '../stats/mcp-call-stats';
import { catalogEntryOf } from '../stats/catalog-entry';


/** The admin dashboard's providers, part of `McpModule` (they need its sessions, state and catalog). */
export const ADMIN_PROVIDERS: Provider[] = [
  {
    provide: McpCallStats,
    useFactory: (options: OperationsOptions, tools: ToolRegistry, prompts: PromptRegistry, resources: ResourceRegistry) =>
      new McpCallStats({ windowMs: options.admin?.statsWindowMs ?? 5 * 60_000, entryOf: catalogEntryOf(tools, prompts, resources) }),
    inject: [MCP_OPERATIONS_OPTIONS, ToolRegistry, PromptRegistry, ResourceRegistry],
  },
  AdminAccess,
  AdminCatalogReader,
  AdminApi,
  AdminEndpoint,
];
