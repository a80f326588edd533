import type { Type } from '@nestjs/common';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpToolOptions, SchemaSource } from '#libs/core';
import type { SchemaKind } from '../schema/schema-kind';

/** Where the validated arguments go in the handler's parameter list. */
export interface ArgsBinding {
  index: number;
  /** Set when `@McpArgs('name')` binds a single argument. */
  property?: string;
}

/** A tool known to the catalog: its wire definition and everything needed to invoke it. */
export interface RegisteredTool {
  readonly name: string;
  /** The definition as sent in `tools/list`. */
  readonly definition: Tool;
  readonly options: McpToolOptions;
  /** `Class.method`, for messages. */
  readonly where: string;
  readonly hostClass: Type<object>;
  readonly methodName: string;
  /** The provider instance; `undefined` when the provider is request-scoped (resolved per call). */
  readonly instance: object | undefined;
  readonly input: { source: SchemaSource; kind: SchemaKind } | undefined;
  readonly output: { source: SchemaSource; kind: SchemaKind } | undefined;
  readonly argsBindings: readonly ArgsBinding[];
}
