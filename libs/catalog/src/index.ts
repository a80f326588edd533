export { CatalogModule } from './catalog.module';
export { ToolRegistry } from './tool.registry';
export { JsonSchemaFactory } from './schema/json-schema.factory';
export type { RegisteredTool, ArgsBinding } from './interfaces/registered-tool.interface';
export type { SchemaKind } from './schema/schema-kind';
export { encodeCursor, decodeCursor } from './pagination/list-cursor';
