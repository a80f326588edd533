import { McpStartupError, type McpExposeOptions, type McpToolOptions } from '#libs/core';
import type { McpCatalog, McpDynamicHandler, McpEntryAccess } from '#libs/catalog';
import type { RestDiagnostic } from '../openapi/rest-diagnostic';
import type { RestToolDefinition } from '../openapi/rest-operation';

/**
 * The catalog options of a REST-derived tool: the mapped definition, with what the route's
 * `@McpExpose` says winning over it.
 */
export function toolOptionsOf(
  definition: RestToolDefinition,
  overrides: McpExposeOptions = {},
): McpToolOptions & { name: string } {
  const title = overrides.title ?? definition.title;
  return {
    name: definition.name,
    description: overrides.description ?? definition.description,
    ...(title !== undefined && { title }),
    input: definition.inputSchema,
    ...(definition.outputSchema && { output: definition.outputSchema }),
    annotations: { ...definition.annotations, ...overrides.annotations },
    ...(overrides.icons && { icons: overrides.icons }),
    ...(overrides.confirm !== undefined && { confirm: overrides.confirm }),
    ...(overrides.timeoutMs !== undefined && { timeoutMs: overrides.timeoutMs }),
    _meta: { ...definition._meta, ...overrides._meta },
  };
}

/**
 * Adds a REST-derived tool to the catalog.
 * @returns the catalog's refusal (an invalid schema, a name taken) as diagnostics, to report with the others
 */
export function addRestTool(
  catalog: McpCatalog,
  options: McpToolOptions & { name: string },
  handler: McpDynamicHandler<never>,
  access: McpEntryAccess,
): RestDiagnostic[] {
  try {
    catalog.addTool(options, handler, access);
    return [];
  } catch (error) {
    if (!(error instanceof McpStartupError)) throw error;
    return error.diagnostics.map((problem) => ({ ...problem, severity: 'error' as const }));
  }
}
