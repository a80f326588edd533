import type { McpTransportKind } from '#libs/core';
import type { AuditableEvent, AuditOutcome } from '#libs/security';

import type { McpEntryKind } from '../wire/mcp-method.table';

export type { McpEntryKind };

/**
 * One finished MCP request (or transport refusal), as the dispatcher and the HTTP transport
 * report it to every `McpRequestObserver` (metrics, dashboard statistics, the audit recorder).
 */
export interface McpRequestEvent extends AuditableEvent {
  /** JSON-RPC method, or `null` for a transport refusal before any message was read. */
  readonly method: string | null;
  /** `tool`/`prompt`/`resource` for calls of a catalog entry (then `target` names it). */
  readonly entryKind: McpEntryKind | undefined;
  /** Tool or prompt name, resource URI, or task id. */
  readonly target: string | undefined;
  readonly outcome: AuditOutcome;
  /** JSON-RPC error code, or HTTP status of a transport refusal. */
  readonly errorCode: number | undefined;
  /** Time from receipt to answer, in milliseconds. */
  readonly latencyMs: number;
  readonly transport: McpTransportKind;
  readonly principal: string | undefined;
  readonly sessionId: string | undefined;
  /** The MCP revision the request spoke (none for transport refusals). */
  readonly protocolVersion?: string;
}

/**
 * Told of every finished request. `observe` runs on the hot path: it must be quick and must
 * not throw (count, don't compute).
 */
export interface McpRequestObserver {
  observe(event: McpRequestEvent): void;
}
