import type { McpLogLevel } from '#libs/core';
import type { McpSession } from './mcp-session';

/**
 * What every replica needs to serve a session: the state `initialize`, `logging/setLevel` and
 * `resources/subscribe` change, and whom it belongs to. Calls in flight, pending requests to the
 * client and open streams stay with the replica that has them (the others reach them by message).
 */
export interface SessionRecord {
  readonly id: string;
  readonly protocolVersion: string;
  readonly clientInfo?: { name: string; version: string };
  readonly clientCapabilities?: Record<string, unknown>;
  readonly logLevel?: McpLogLevel;
  readonly opened: boolean;
  readonly initialized: boolean;
  readonly principalId?: string;
  readonly owner?: string;
  readonly subscriptions: readonly string[];
  readonly createdAt: number;
}

/** The record of `session` (a stateful one: it has an id). */
export function recordOf(session: McpSession): SessionRecord {
  return {
    id: session.id!,
    protocolVersion: session.protocolVersion,
    ...(session.clientInfo && { clientInfo: session.clientInfo }),
    ...(session.clientCapabilities && { clientCapabilities: session.clientCapabilities }),
    ...(session.logLevel && { logLevel: session.logLevel }),
    opened: session.opened,
    initialized: session.initialized,
    ...(session.principalId !== undefined && { principalId: session.principalId }),
    ...(session.owner !== undefined && { owner: session.owner }),
    subscriptions: [...session.subscriptions],
    createdAt: session.createdAt,
  };
}

/** Brings `session` (this replica's copy) to what `record` says. */
export function applyRecord(session: McpSession, record: SessionRecord): void {
  session.protocolVersion = record.protocolVersion;
  session.clientInfo = record.clientInfo;
  session.clientCapabilities = record.clientCapabilities;
  session.logLevel = record.logLevel;
  session.opened = record.opened;
  session.initialized = record.initialized;
  session.principalId = record.principalId;
  session.owner = record.owner;
  session.createdAt = record.createdAt;
  session.subscriptions.clear();
  for (const uri of record.subscriptions) session.subscriptions.add(uri);
}
