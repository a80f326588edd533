import { JsonRpcError, JsonRpcErrorCode } from '#libs/core';

/**
 * The error for a resource that does not exist (`-32002`, the URI in `data`), for template
 * readers whose variables name nothing.
 *
 * @example
 * ```ts
 * const article = this.kb.find(slug);
 * if (!article) throw resourceNotFound(`kb://articles/${slug}`);
 * ```
 */
export function resourceNotFound(uri: string): JsonRpcError {
  return new JsonRpcError(JsonRpcErrorCode.RESOURCE_NOT_FOUND, `Resource not found: ${uri}`, { uri });
}
