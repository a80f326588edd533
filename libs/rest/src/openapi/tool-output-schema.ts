import type { JsonSchemaObject } from '#libs/core';
import type { RestOperation, RestResponse } from './rest-operation';
import { inlineRootRef, pruneDefs, splitDefs } from './schema-defs';

/** The output side of an operation's tool. */
export interface ToolOutput {
  /** Absent when no 2xx response documents a JSON body. */
  readonly schema?: JsonSchemaObject;
  /** True when the body is not an object and the tool's `structuredContent` is `{ result: body }`. */
  readonly wrapsResult: boolean;
}

/**
 * The response a tool's output describes: the first 2xx response with a JSON schema, exact codes
 * in ascending order (200, 201, …) before the `2XX` range. `default` is never used: it mostly
 * documents errors.
 *
 * @example
 * ```ts
 * successResponseOf(operation)?.status; // '200' when it has a JSON schema, else '201', …, else '2XX'
 * ```
 */
export function successResponseOf(operation: RestOperation): RestResponse | undefined {
  const withSchema = operation.responses.filter((response) => response.schema !== undefined);
  const exact = withSchema
    .filter((response) => /^2\d\d$/.test(response.status))
    .sort((a, b) => Number(a.status) - Number(b.status));
  return exact[0] ?? withSchema.find((response) => response.status.toUpperCase() === '2XX');
}

/**
 * The output schema of an operation's tool: the success response's schema when it is an object
 * (its root `$ref` inlined, MCP wants `type: 'object'` at the root); anything else wrapped as
 * `{ type: 'object', properties: { result: <schema> }, required: ['result'] }`.
 *
 * @example
 * ```ts
 * toolOutputOf(findPetsByStatus);
 * // { schema: { type: 'object', properties: { result: { type: 'array', items: { $ref: '#/$defs/Pet' } } }, required: ['result'], $defs: {…} }, wrapsResult: true }
 * ```
 */
export function toolOutputOf(operation: RestOperation): ToolOutput {
  const response = successResponseOf(operation);
  if (!response?.schema) return { wrapsResult: false };
  const schema = pruneDefs(inlineRootRef(response.schema));
  if (schema.type === 'object') return { schema, wrapsResult: false };
  const { schema: result, defs } = splitDefs(response.schema);
  const wrapped: JsonSchemaObject = {
    type: 'object',
    properties: { result },
    required: ['result'],
    ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}),
  };
  return { schema: pruneDefs(wrapped), wrapsResult: true };
}
