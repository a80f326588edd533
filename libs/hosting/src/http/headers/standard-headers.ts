import type { IncomingHttpHeaders } from 'node:http';
import type { JsonRpcError } from '#libs/core';
import { routingParamOf, traitsOf } from '#libs/protocol';
import { headerMismatch, quoted } from './header-mismatch';
import { rawHeader, readHeaderValue } from './header-value';

/**
 * `Mcp-Method` (every request: the body's `method`, case-sensitive) and `Mcp-Name` (`tools/call`,
 * `prompts/get`: `params.name`; `resources/read`: `params.uri`; task requests: `params.taskId`),
 * each required and equal to the body once decoded (2026-07-28 "Standard Request Headers").
 * A body without the named field is left to the method, which refuses it with `-32602`.
 * @returns `-32020` when a header is missing, malformed or different, else `undefined`
 */
export function checkStandardHeaders(
  headers: IncomingHttpHeaders,
  method: string,
  params: Record<string, unknown> | undefined,
): JsonRpcError | undefined {
  const methodHeader = rawHeader(headers, 'mcp-method');
  if (methodHeader === undefined)
    return headerMismatch(`the Mcp-Method header is required and must equal the body's method (${quoted(method)})`);
  const sent = readHeaderValue(methodHeader, false);
  if ('invalid' in sent) return headerMismatch(`Mcp-Method ${sent.invalid}`);
  if (sent.text !== method)
    return headerMismatch(`Mcp-Method header value ${quoted(sent.text)} does not match body method ${quoted(method)}`);

  // The method table says which field each method's `Mcp-Name` mirrors (none for methods of the other era).
  const field = traitsOf(method)?.era === 'session' ? undefined : routingParamOf(method);
  const named = field === undefined ? undefined : params?.[field];
  if (typeof named !== 'string') return undefined;
  const nameHeader = rawHeader(headers, 'mcp-name');
  if (nameHeader === undefined)
    return headerMismatch(`the Mcp-Name header is required for ${method} and must equal params.${field}`);
  const name = readHeaderValue(nameHeader, true);
  if ('invalid' in name) return headerMismatch(`Mcp-Name ${name.invalid}`);
  if (name.text !== named)
    return headerMismatch(
      `Mcp-Name header value ${quoted(name.text)} does not match body params.${field} ${quoted(named)}`,
    );
  return undefined;
}
