import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { JsonSchemaFactory } from './schema/json-schema.factory';
import { ToolDefinitionFactory } from './tool-definition.factory';
import { ToolExplorer } from './tool.explorer';
import { ToolRegistry } from './tool.registry';

/** Discovers `@McpTool` providers at module init and keeps the tool registry. */
@Module({
  imports: [DiscoveryModule],
  providers: [JsonSchemaFactory, ToolDefinitionFactory, ToolExplorer, ToolRegistry],
  exports: [ToolRegistry, JsonSchemaFactory],
})
export class CatalogModule {}
