import { JsonRpcError, JsonRpcErrorCode } from '#libs/core';
import { META_KEYS } from '../eras/request-envelope';
import type { McpSession } from '../sessions/mcp-session';
import { TASKS_EXTENSION } from '../eras/extensions';

export { TASKS_EXTENSION };

/**
 * Whether the request declared the tasks extension in its `_meta` client capabilities. Only a
 * 2026-07-28 request can: the extension does not exist for 2025-era sessions, whatever they declare.
 */
export function declaresTasks(session: McpSession): boolean {
  if (!session.stateless) return false;
  const extensions = session.clientCapabilities?.extensions;
  return typeof extensions === 'object' && extensions !== null && TASKS_EXTENSION in extensions;
}

/**
 * `-32021` for a request that needs the tasks extension its client did not declare (HTTP 400),
 * naming the extension in `data.requiredCapabilities` as the extension's spec shows.
 */
export function missingTasksExtension(why: string): JsonRpcError {
  return new JsonRpcError(
    JsonRpcErrorCode.MISSING_CLIENT_CAPABILITY,
    `Missing client capability: ${why}; declare "${TASKS_EXTENSION}" in the "extensions" of ` +
      `"_meta"."${META_KEYS.clientCapabilities}"`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    400,
  );
}
