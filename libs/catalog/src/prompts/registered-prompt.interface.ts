import type { Prompt } from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchemaObject, McpCompleter, McpPromptArgument, McpPromptOptions, SchemaSource } from '#libs/core';
import type { RegisteredHandler } from '../handlers/registered-handler.interface';
import type { SchemaKind } from '../schema/schema-kind';

/** A prompt known to the catalog. */
export interface RegisteredPrompt extends RegisteredHandler {
  readonly name: string;
  /** The definition as sent in `prompts/list`. */
  readonly definition: Prompt;
  readonly options: McpPromptOptions;
  /** The declared arguments (also what `required` checks run against). */
  readonly arguments: readonly McpPromptArgument[];
  /** A DTO or zod schema that validates (and may transform) the arguments. */
  readonly validation: { source: SchemaSource; kind: SchemaKind } | undefined;
  /** The JSON Schema of `validation`'s DTO or zod schema (what marks arguments sensitive). */
  readonly argumentsSchema: JsonSchemaObject | undefined;
  readonly complete: Readonly<Record<string, McpCompleter>>;
}
