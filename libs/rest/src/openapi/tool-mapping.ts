/**
 * `RestOperation` → `RestToolDefinition`. The input schema is one flat object of the
 * operation's path, query and header parameters and its JSON body's top-level properties; on a
 * clash body properties keep their names and a parameter takes its location as prefix
 * (`path_id`, `query_id`, `header_x_trace`); a non-object body is one `body` property; an
 * operation whose body is not JSON gets no tool. The whole convention: `tool-input-schema.ts`.
 */
import type { McpToolAnnotations } from '#libs/core';
import type { RestDiagnostic } from './rest-diagnostic';
import type { RestOperation, RestToolDefinition } from './rest-operation';
import { annotationsOf } from './tool-annotations';
import { toolInputOf } from './tool-input-schema';
import { nameTools, type ToolNamingOptions } from './tool-naming';
import { toolOutputOf } from './tool-output-schema';

/**
 * The key of `_meta` under which a REST-derived tool names its operation.
 *
 * @example
 * ```ts
 * const { method, path } = tool._meta[REST_META_KEY] as { method: string; path: string };
 * ```
 */
export const REST_META_KEY = 'nest-mcp-host/rest';

/** A summary this long or shorter (and on one line) is also the tool's `title`. */
const TITLE_MAX_LENGTH = 64;

/** Options of `mapOperations`. */
export interface ToolMappingOptions extends ToolNamingOptions {
  /**
   * Annotations that win over the method's and the operation's `x-mcp-annotations`, keyed as
   * `names` is: by `operationId` or `'METHOD /path'`.
   */
  readonly annotations?: Readonly<Record<string, McpToolAnnotations>>;
}

/** The tools, and every problem met (errors and warnings; see `RestDiagnostic`). */
export interface ToolMappingResult {
  readonly tools: RestToolDefinition[];
  readonly diagnostics: RestDiagnostic[];
}

/**
 * Maps operations to MCP tools: names (`nameTools`), descriptions, flat input schemas and argument
 * targets (`toolInputOf`), output schemas (`toolOutputOf`), annotations (`annotationsOf`) and
 * `_meta`. An operation with no possible tool (a non-JSON body, a clash even its prefixed name
 * cannot solve) is left out, with a diagnostic naming it.
 *
 * @example
 * ```ts
 * const { operations } = readOperations(document);
 * const { tools, diagnostics } = mapOperations(operations, { prefix: 'petstore_' });
 * // tools[0]: { name: 'petstore_updatePet', description: 'Update an existing pet.\n\nUpdate an existing pet by Id.', … }
 * ```
 */
export function mapOperations(
  operations: readonly RestOperation[],
  options: ToolMappingOptions = {},
): ToolMappingResult {
  const { names, diagnostics } = nameTools(operations, options);
  const tools: RestToolDefinition[] = [];
  operations.forEach((operation, index) => {
    const input = toolInputOf(operation);
    diagnostics.push(...input.diagnostics);
    if (!input.schema) return;
    const output = toolOutputOf(operation);
    const title = titleOf(operation);
    tools.push({
      name: names[index],
      ...(title ? { title } : {}),
      description: descriptionOf(operation),
      inputSchema: input.schema,
      ...(output.schema ? { outputSchema: output.schema } : {}),
      wrapsResult: output.wrapsResult,
      annotations: annotationsOf(operation, overrideOf(operation, options.annotations)),
      _meta: {
        [REST_META_KEY]: {
          method: operation.method.toUpperCase(),
          path: operation.path,
          ...(operation.operationId ? { operationId: operation.operationId } : {}),
          tags: operation.tags,
          operation: operation.source,
        },
      },
      arguments: input.arguments,
      operation,
    });
  });
  return { tools, diagnostics };
}

/**
 * Summary and description, summary first, joined by a blank line; one of them alone when the
 * other is empty or says the same (the description starting with the summary counts);
 * `METHOD /path` when there is neither.
 *
 * @example
 * ```ts
 * descriptionOf({ summary: 'Find pet by ID.', description: 'Returns a single pet.', … }); // 'Find pet by ID.\n\nReturns a single pet.'
 * ```
 */
export function descriptionOf(operation: RestOperation): string {
  const summary = operation.summary?.trim() ?? '';
  const description = operation.description?.trim() ?? '';
  if (summary && description) {
    // "Add a pet" repeats in "Add a pet to the store."; "Get" does not in "Getting started".
    const bare = summary.replace(/[.\s]+$/, '').toLowerCase();
    const lower = description.toLowerCase();
    const repeats = lower.startsWith(bare) && !/[\p{L}\p{N}]/u.test(lower.charAt(bare.length));
    return repeats ? description : `${summary}\n\n${description}`;
  }
  return summary || description || `${operation.method.toUpperCase()} ${operation.path}`;
}

/** The summary without its final period, when it is short and on one line. */
function titleOf(operation: RestOperation): string | undefined {
  const summary = operation.summary?.trim();
  if (!summary || summary.length > TITLE_MAX_LENGTH || summary.includes('\n')) return undefined;
  return summary.replace(/\.$/, '');
}

function overrideOf(
  operation: RestOperation,
  byKey: ToolMappingOptions['annotations'],
): McpToolAnnotations | undefined {
  if (!byKey) return undefined;
  const key = [operation.operationId, `${operation.method.toUpperCase()} ${operation.path}`].find(
    (candidate) => candidate !== undefined && Object.prototype.hasOwnProperty.call(byKey, candidate),
  );
  return key === undefined ? undefined : byKey[key];
}
