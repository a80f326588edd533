import { validateHeaderName, validateHeaderValue } from 'node:http';
import { McpToolError } from '#libs/core';
import type { RestRequestParts } from '../openapi/rest-operation';
import type { EncodedBody } from './request-body';
import { RestExecutionMessages } from './rest-execution.messages';

/**
 * Headers the bridge sets itself (or the transport does): a tool argument never overrides them,
 * as they describe the connection and the body, not the operation.
 */
const RESERVED = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
]);

/**
 * The headers of a bridged request: the operation's header parameters from `parts.headers`,
 * `accept: application/json` unless a parameter says otherwise, and the body's `content-type`
 * and `content-length`. Nothing else: the MCP request's own headers never reach the route.
 * @throws McpToolError when a header name or value cannot travel in HTTP (e.g. a line break)
 */
export function requestHeaders(parts: RestRequestParts, body: EncodedBody | undefined): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json' };
  for (const [rawName, value] of Object.entries(parts.headers)) {
    const name = rawName.toLowerCase();
    if (RESERVED.has(name)) continue;
    try {
      validateHeaderName(name);
      validateHeaderValue(name, value);
    } catch (error) {
      throw new McpToolError(RestExecutionMessages.badHeader(name, (error as Error).message));
    }
    headers[name] = value;
  }
  if (body) {
    headers['content-type'] = body.contentType;
    headers['content-length'] = String(body.bytes.length);
  } else {
    delete headers['content-type'];
  }
  return headers;
}
