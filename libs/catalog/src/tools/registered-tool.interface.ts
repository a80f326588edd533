import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpToolOptions, SchemaSource } from '#libs/core';
import type { SchemaKind } from '../schema/schema-kind';
import type { RegisteredHandler } from '../handlers/registered-handler.interface';
import type { ToolHeaderParam } from './tool-header-params';

export type { ArgsBinding } from '../handlers/registered-handler.interface';

/** A tool known to the catalog: its wire definition and everything needed to invoke it. */
export interface RegisteredTool extends RegisteredHandler {
  readonly name: string;
  /** The definition as sent in `tools/list`. */
  readonly definition: Tool;
  readonly options: McpToolOptions;
  readonly input: { source: SchemaSource; kind: SchemaKind } | undefined;
  readonly output: { source: SchemaSource; kind: SchemaKind } | undefined;
  /** Its parameters mirrored into `Mcp-Param-*` HTTP headers (`x-mcp-header`); none when absent. */
  readonly headerParams?: readonly ToolHeaderParam[];
}
