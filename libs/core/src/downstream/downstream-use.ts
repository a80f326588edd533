import type { McpCallContext } from '../interfaces/mcp-call-context.interface';

/** How a call authenticated downstream (a gateway upstream, a `rest.apis` API). */
export type McpDownstreamCredentialMode = 'service' | 'token-exchange' | 'user';

/**
 * The identity a call used downstream, as its audit record names it: who it acted for
 * (`subject`), who acted (`actor`, the host), and as whom the downstream saw it (`identity`:
 * the exchanged token's subject, the person's connected account, or the service account).
 * @example
 * { mode: 'token-exchange', target: 'upstream wiki', subject: 'alice', actor: 'desk-host', identity: 'alice', audience: 'https://wiki.example/mcp' }
 */
export interface McpDownstreamUse {
  mode: McpDownstreamCredentialMode;
  /** `upstream <name>` or `api <name>`. */
  target: string;
  subject: string;
  actor: string | null;
  identity: string | null;
  audience?: string;
}

/** @internal Where a call context takes the downstream identity its call used (library code only). */
export const RECORD_DOWNSTREAM = Symbol('MCP:RECORD_DOWNSTREAM');

/**
 * @internal Puts the downstream identity a call used on the call's audit record. A no-op for a
 * context that keeps no record (a test's own).
 */
export function recordDownstream(context: McpCallContext, use: McpDownstreamUse): void {
  (context as { [RECORD_DOWNSTREAM]?: (use: McpDownstreamUse) => void })[RECORD_DOWNSTREAM]?.(use);
}
