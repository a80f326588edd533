import type { IncomingHttpHeaders } from 'node:http';
import { isStatelessRequest } from '#libs/protocol';
import { VERSION_HEADER } from './stateless-headers';

/**
 * Whether an HTTP request speaks 2026-07-28 (no session: its `_meta` says who the client is) —
 * the one place POST, GET and DELETE decide it. A body's `_meta` names its revision; without one,
 * an `MCP-Protocol-Version` header naming a stateless revision the host does not serve with
 * sessions does. A 2026-07-28 client has no GET stream and no session to DELETE.
 * @param params the params of a POSTed request or notification (none for GET and DELETE)
 */
export function speaksStateless(headers: IncomingHttpHeaders, params?: Record<string, unknown>): boolean {
  const version = headers[VERSION_HEADER];
  return isStatelessRequest(params, typeof version === 'string' ? version : undefined);
}
