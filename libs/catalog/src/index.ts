export { CatalogModule } from './catalog.module';
export { CATALOG_PROVIDERS, LOCAL_CATALOG_TOGGLES } from './catalog.providers';
export { CatalogExplorer } from './discovery/catalog.explorer';
export { ToolRegistry } from './tools/tool.registry';
export { JsonSchemaFactory } from './schema/json-schema.factory';
export { portableSchema } from './schema/portable-schema';
export { prototypeNamedProperties } from './schema/prototype-names';
export { schemaPortabilityIssues, type SchemaPortabilityIssue } from './schema/schema-portability';
export type { RegisteredTool } from './tools/registered-tool.interface';
export { toolHeaderParams, type ToolHeaderParam } from './tools/tool-header-params';
export {
  OPEN_ACCESS,
  type RegisteredHandler,
  type McpEntryOrigin,
  type RouteHandler,
  type ArgsBinding,
  type AccessRequirements,
} from './handlers/registered-handler.interface';
export { PromptRegistry } from './prompts/prompt.registry';
export type { RegisteredPrompt } from './prompts/registered-prompt.interface';
export { ResourceRegistry, type ResolvedResource } from './resources/resource.registry';
export type { RegisteredResource, RegisteredResourceTemplate } from './resources/registered-resource.interface';
export { UriTemplate } from './resources/uri-template';
export { CatalogList, type CatalogEntry, type ListView } from './lists/catalog-list';
export type { SchemaKind } from './schema/schema-kind';
export { encodeCursor, decodeCursor } from './pagination/list-cursor';
export { McpCatalog, type McpCatalogKind, type McpEntryAccess } from './runtime/mcp-catalog';
export { CATALOG_TOGGLES, InjectCatalogToggles, type CatalogToggles } from './runtime/catalog-toggles';
export { LocalCatalogToggles } from './runtime/local-catalog-toggles';
export type { McpDynamicHandler } from './runtime/dynamic-handler';
export {
  MCP_CATALOG_OPTIONS,
  InjectCatalogOptions,
  CATALOG_OPTION_KEYS,
  resolveCatalogOptions,
  type CatalogOptions,
} from './discovery/catalog.options';
export { cliNamesOf, kebabCase, CLI_RESERVED_OPTIONS, type CliPropertyNames } from './tools/tool-cli-names';
export {
  cliValueTypeOf,
  isCliFlag,
  type CliValueType,
  type CliScalarType,
  type CliLiteral,
} from './tools/cli-value-type';
