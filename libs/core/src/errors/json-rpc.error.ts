import { IntrinsicException } from '@nestjs/common';

/**
 * Every JSON-RPC 2.0 and MCP error code the host answers with: the one table (no code is
 * written as a number anywhere else).
 */
export const JsonRpcErrorCode = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /**
   * The body of an HTTP refusal of the Streamable HTTP transport (unknown session, failed
   * authentication, too many failures): the server-defined code the official SDK uses there.
   */
  TRANSPORT_REFUSED: -32001,
  /**
   * A `prompts/get` or `resources/read` over a rate limit (a tool call gets an `isError` result
   * instead): the message and `data.retryAfterSeconds` say when to retry. Server-defined (429).
   */
  THROTTLED: -32029,
  /** MCP 2025-11-25: the resource a request names does not exist. */
  RESOURCE_NOT_FOUND: -32002,
  /** MCP 2026-07-28: an HTTP header disagrees with the body it mirrors, or a required one is missing. */
  HEADER_MISMATCH: -32020,
  /** MCP 2026-07-28: the request needs a client capability its `_meta` did not declare. */
  MISSING_CLIENT_CAPABILITY: -32021,
  /** MCP 2026-07-28: the request's protocol version is not one the host serves. */
  UNSUPPORTED_PROTOCOL_VERSION: -32022,
} as const;

/**
 * A protocol-level failure that becomes a JSON-RPC error response (unknown method, malformed
 * request, unknown tool, bad cursor). Tool failures are *results* with `isError`, not these.
 * It reports the client's mistake, not the host's, so Nest's exception filter does not log it
 * as an error (it is an `IntrinsicException`).
 */
export class JsonRpcError extends IntrinsicException {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
    /**
     * The HTTP status the Streamable HTTP transport answers with, where the revision in use
     * prescribes one (2026-07-28: 400 for a bad envelope or header, 404 for an unknown method).
     */
    readonly httpStatus?: number,
  ) {
    super(message);
    this.name = 'JsonRpcError';
  }
}
