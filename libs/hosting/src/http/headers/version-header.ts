import type { IncomingHttpHeaders } from 'node:http';
import { ALL_PROTOCOL_VERSIONS, type JsonRpcError } from '#libs/core';
import { envelopeVersionOf, unsupportedVersion } from '#libs/protocol';
import { headerMismatch } from './header-mismatch';

/** The header every 2026-07-28 POST carries, mirroring `_meta`'s protocol version. */
export const VERSION_HEADER = 'mcp-protocol-version';

/**
 * `MCP-Protocol-Version` against the body's `_meta` protocol version: required, equal, and a
 * revision the host serves.
 * @returns `-32020` for a missing or different header, `-32022` for a revision not served, else `undefined`
 */
export function checkVersionHeader(
  headers: IncomingHttpHeaders,
  params: Record<string, unknown> | undefined,
): JsonRpcError | undefined {
  const header = headers[VERSION_HEADER];
  const version = envelopeVersionOf(params);
  if (typeof header !== 'string' || header === '')
    return headerMismatch(
      'the MCP-Protocol-Version header is required and must equal _meta\'s "io.modelcontextprotocol/protocolVersion"',
    );
  if (typeof version === 'string' && version !== header)
    return headerMismatch(
      `MCP-Protocol-Version is "${header}" but _meta's "io.modelcontextprotocol/protocolVersion" is "${version}"`,
    );
  if (!ALL_PROTOCOL_VERSIONS.includes(header)) return unsupportedVersion(header);
  return undefined;
}
