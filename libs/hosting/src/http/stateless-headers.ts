import type { IncomingHttpHeaders } from 'node:http';
import { ALL_PROTOCOL_VERSIONS, JsonRpcError, JsonRpcErrorCode } from '#libs/core';
import { envelopeVersionOf, unsupportedVersion } from '#libs/protocol';

/** The header every 2026-07-28 POST carries, mirroring `_meta`'s protocol version. */
export const VERSION_HEADER = 'mcp-protocol-version';

function mismatch(problem: string): JsonRpcError {
  return new JsonRpcError(JsonRpcErrorCode.HEADER_MISMATCH, `Header mismatch: ${problem}`, undefined, 400);
}

/**
 * Checks the headers of a 2026-07-28 request against its body: intermediaries route on the
 * headers and the host runs the body, so the two must agree (the spec's "Server Validation").
 * Returns the error to answer (HTTP 400), or `undefined`.
 */
export function checkStatelessHeaders(
  headers: IncomingHttpHeaders,
  _method: string,
  params: Record<string, unknown> | undefined,
): JsonRpcError | undefined {
  const header = headers[VERSION_HEADER];
  const version = envelopeVersionOf(params);
  if (typeof header !== 'string' || header === '')
    return mismatch(
      'the MCP-Protocol-Version header is required and must equal _meta\'s "io.modelcontextprotocol/protocolVersion"',
    );
  if (typeof version === 'string' && version !== header)
    return mismatch(
      `MCP-Protocol-Version is "${header}" but _meta's "io.modelcontextprotocol/protocolVersion" is "${version}"`,
    );
  if (!ALL_PROTOCOL_VERSIONS.includes(header)) return unsupportedVersion(header);
  return undefined;
}
