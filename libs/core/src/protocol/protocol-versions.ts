/** The protocol revision the host prefers. */
export const LATEST_PROTOCOL_VERSION = '2025-11-25';

/** Revisions served with sessions and `initialize`, newest first. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26'];

/** What a Streamable HTTP request without `MCP-Protocol-Version` is assumed to speak. */
export const DEFAULT_HTTP_PROTOCOL_VERSION = '2025-03-26';
