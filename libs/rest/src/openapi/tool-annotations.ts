import type { McpToolAnnotations } from '#libs/core';
import type { RestMethod, RestOperation } from './rest-operation';

/**
 * The operation extension whose annotations win over those derived from the method.
 *
 * @example
 * ```yaml
 * delete:
 *   operationId: archiveTicket
 *   x-mcp-annotations: { destructiveHint: false }
 * ```
 */
export const ANNOTATIONS_EXTENSION = 'x-mcp-annotations';

/**
 * What HTTP says about each method, in MCP's terms. Safe methods are read-only (and so not
 * destructive: MCP reads `destructiveHint` only when `readOnlyHint` is false, but a client that
 * forgets would take its default, `true`). DELETE destroys and is idempotent; PUT is idempotent
 * and replaces, which may destroy, so that stays unsaid; POST and PATCH assert nothing beyond
 * "not read-only".
 */
const BY_METHOD: Readonly<Record<RestMethod, McpToolAnnotations>> = {
  get: { readOnlyHint: true, destructiveHint: false },
  head: { readOnlyHint: true, destructiveHint: false },
  options: { readOnlyHint: true, destructiveHint: false },
  trace: { readOnlyHint: true, destructiveHint: false },
  delete: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  put: { readOnlyHint: false, idempotentHint: true },
  post: { readOnlyHint: false },
  patch: { readOnlyHint: false },
};

const KNOWN: Readonly<Record<keyof McpToolAnnotations, 'boolean' | 'string'>> = {
  title: 'string',
  readOnlyHint: 'boolean',
  destructiveHint: 'boolean',
  idempotentHint: 'boolean',
  openWorldHint: 'boolean',
};

/** The known annotations of an `x-mcp-annotations` value, each of the right type; the rest ignored. */
function annotationsExtension(value: unknown): McpToolAnnotations {
  if (typeof value !== 'object' || value === null) return {};
  const out: Record<string, unknown> = {};
  for (const [key, type] of Object.entries(KNOWN)) {
    const hint = (value as Record<string, unknown>)[key];
    if (typeof hint === type) out[key] = hint;
  }
  return out as McpToolAnnotations;
}

/**
 * An operation's tool annotations: from its method (see above), then the operation's
 * `x-mcp-annotations` over them, then `override` (the host's options) over both.
 *
 * @example
 * ```ts
 * annotationsOf(deletePet); // { readOnlyHint: false, destructiveHint: true, idempotentHint: true }
 * annotationsOf(deletePet, { destructiveHint: false }); // { readOnlyHint: false, destructiveHint: false, idempotentHint: true }
 * ```
 */
export function annotationsOf(operation: RestOperation, override: McpToolAnnotations = {}): McpToolAnnotations {
  return {
    ...BY_METHOD[operation.method],
    ...annotationsExtension(operation.source[ANNOTATIONS_EXTENSION]),
    ...annotationsExtension(override),
  };
}
