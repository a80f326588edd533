import { Inject } from '@nestjs/common';
import type { AuditRecord } from './audit-record';

/** Token of the audit trail's storage. */
export const MCP_AUDIT_SINK = Symbol('MCP:AUDIT_SINK');

/** Injects the configured `AuditSink`. */
export const InjectAuditSink = (): ParameterDecorator => Inject(MCP_AUDIT_SINK);

/** Where the last record of a chain stands, so a restarted host continues its chain. */
export interface AuditChainTail {
  seq: number;
  hash: string;
}

/**
 * Durable storage of audit records. The trail calls it from one flusher at a time, in chain
 * order, and retries a batch that failed with the very same records (same ids and hashes), so
 * `append` must be idempotent on `id`.
 *
 * @example
 * ```ts
 * class SiemSink implements AuditSink {
 *   readonly name = 'siem';
 *   async append(records: readonly AuditRecord[]) { await siem.send(records); }
 * }
 * McpModule.forRoot({ ..., audit: { sink: new SiemSink() } })
 * ```
 */
export interface AuditSink {
  /** Shown in health, metrics and the dashboard, e.g. `jsonl` or `postgres`. */
  readonly name: string;
  /** Prepares the storage (creates files, runs migrations). Called once before the first append. */
  open?(): Promise<void>;
  /** Stores the records durably, in order; rejects when they were not all stored. */
  append(records: readonly AuditRecord[]): Promise<void>;
  /** The last stored record of `chain`, or `undefined` for a new chain. */
  tail?(chain: string): Promise<AuditChainTail | undefined>;
  /** Resolves when the storage is reachable (readiness checks it even when no record is waiting). */
  ping?(): Promise<void>;
  /** Releases connections and file handles. */
  close?(): Promise<void>;
}
