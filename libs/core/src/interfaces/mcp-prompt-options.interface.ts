import type { McpCacheOptions } from './mcp-cache-options.interface';
import type { McpIcon } from './mcp-tool-options.interface';
import type { SchemaSource } from './schema-source.interface';

/** One argument of a prompt, as listed by `prompts/list`. Prompt argument values are strings. */
export interface McpPromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

/**
 * Suggests values for an argument (`completion/complete`): receives what the user typed so far
 * and the arguments already given; returns matching values, best first.
 */
export type McpCompleter = (
  value: string,
  context: { arguments: Readonly<Record<string, string>> },
) => string[] | Promise<string[]>;

/** Options of `@McpPrompt()`. */
export interface McpPromptOptions {
  /** Prompt name; defaults to the method name. */
  name?: string;
  title?: string;
  /** What the prompt is for. Required. */
  description: string;
  /**
   * The arguments: an explicit list, a zod 4 object schema, or a class-validator DTO (also
   * inferred from a class-typed `@McpArgs()` parameter). Values arrive as strings.
   */
  args?: McpPromptArgument[] | SchemaSource;
  /** Completers by argument name, for `completion/complete`. */
  complete?: Record<string, McpCompleter>;
  icons?: McpIcon[];
  /**
   * Caching hints of `prompts/list` for 2026-07-28 clients (the list takes its entries' most
   * conservative hints). @default McpModule `cache`, else `{ ttlMs: 0, scope: 'private' }`
   */
  cache?: McpCacheOptions;
  _meta?: Record<string, unknown>;
}
