import type { McpDiagnostic } from '#libs/core';
import type { RestOperation } from './rest-operation';

/**
 * A problem the REST bridge found in a document or a mapping. An `McpDiagnostic` (so it can be
 * thrown in an `McpStartupError` as is), with a severity: an `error` leaves a tool missing or
 * wrong (a dangling `$ref`, two tools of one name), a `warning` reports something left out on
 * purpose (an `Authorization` header parameter, an operation whose body is not JSON).
 */
export interface RestDiagnostic extends McpDiagnostic {
  readonly severity: 'error' | 'warning';
}

/**
 * How diagnostics name an operation: method, path and `operationId` when it has one.
 *
 * @example
 * ```ts
 * operationLabel({ method: 'get', path: '/pet/{petId}', operationId: 'getPetById' }); // 'GET /pet/{petId} (getPetById)'
 * ```
 */
export function operationLabel(operation: Pick<RestOperation, 'method' | 'path' | 'operationId'>): string {
  const id = operation.operationId ? ` (${operation.operationId})` : '';
  return `${operation.method.toUpperCase()} ${operation.path}${id}`;
}
