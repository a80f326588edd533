import type { Provider } from '@nestjs/common';
import { CatalogExplorer } from './discovery/catalog.explorer';
import { McpCatalog } from './runtime/mcp-catalog';
import { CATALOG_TOGGLES } from './runtime/catalog-toggles';
import { LocalCatalogToggles } from './runtime/local-catalog-toggles';
import { PromptDefinitionFactory } from './prompts/prompt-definition.factory';
import { PromptRegistry } from './prompts/prompt.registry';
import { ResourceDefinitionFactory } from './resources/resource-definition.factory';
import { ResourceRegistry } from './resources/resource.registry';
import { JsonSchemaFactory } from './schema/json-schema.factory';
import { ToolDefinitionFactory } from './tools/tool-definition.factory';
import { ToolRegistry } from './tools/tool.registry';

/**
 * The catalog of one MCP server: discovers tools, prompts and resources at module init and keeps
 * their registries. Needs Nest's `DiscoveryModule` imported beside it, and the `CATALOG_TOGGLES`
 * its host chooses (`LocalCatalogToggles` for one replica).
 */
export const CATALOG_PROVIDERS = [
  JsonSchemaFactory,
  ToolDefinitionFactory,
  PromptDefinitionFactory,
  ResourceDefinitionFactory,
  CatalogExplorer,
  ToolRegistry,
  PromptRegistry,
  ResourceRegistry,
  McpCatalog,
];

/** The toggles of a catalog used on its own (`CatalogModule`: one process, no host to choose them). */
export const LOCAL_CATALOG_TOGGLES: Provider = { provide: CATALOG_TOGGLES, useClass: LocalCatalogToggles };
