/** The session-era protocol revision the host prefers (`initialize` negotiates it). */
export const LATEST_PROTOCOL_VERSION = '2025-11-25';

/** Revisions served with sessions and `initialize`, newest first. */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26'];

/**
 * The stateless revision: no `initialize`, no session; every request carries its version and the
 * client's capabilities in `_meta`. Served on the same endpoint as the session-era revisions.
 */
export const STATELESS_PROTOCOL_VERSION = '2026-07-28';

/** Every revision the host serves, newest first (what `server/discover` announces). */
export const ALL_PROTOCOL_VERSIONS: readonly string[] = [STATELESS_PROTOCOL_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS];

/** What a Streamable HTTP request without `MCP-Protocol-Version` is assumed to speak. */
export const DEFAULT_HTTP_PROTOCOL_VERSION = '2025-03-26';

/** Whether `version` is a stateless revision (2026-07-28 or later; revisions are ISO dates, so they sort as text). */
export function isStatelessVersion(version: string): boolean {
  return version >= STATELESS_PROTOCOL_VERSION;
}
