import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { CatalogExplorer } from './catalog.explorer';
import { McpCatalog } from './mcp-catalog';
import { PromptDefinitionFactory } from './prompts/prompt-definition.factory';
import { PromptRegistry } from './prompts/prompt.registry';
import { ResourceDefinitionFactory } from './resources/resource-definition.factory';
import { ResourceRegistry } from './resources/resource.registry';
import { JsonSchemaFactory } from './schema/json-schema.factory';
import { ToolDefinitionFactory } from './tool-definition.factory';
import { ToolRegistry } from './tool.registry';

/** Discovers tools, prompts and resources at module init and keeps their registries. */
@Module({
  imports: [DiscoveryModule],
  providers: [
    JsonSchemaFactory,
    ToolDefinitionFactory,
    PromptDefinitionFactory,
    ResourceDefinitionFactory,
    CatalogExplorer,
    ToolRegistry,
    PromptRegistry,
    ResourceRegistry,
    McpCatalog,
  ],
  exports: [ToolRegistry, PromptRegistry, ResourceRegistry, JsonSchemaFactory, McpCatalog],
})
export class CatalogModule {}
