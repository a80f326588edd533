import { createHash } from 'node:crypto';
import type { AuditRecord } from './audit-record';

/** `prevHash` of a chain's first record. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * JSON with object keys sorted at every level and no whitespace, so the same value always has
 * the same text (and hash), whatever order its fields were built in.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  const fields: string[] = [];
  for (const key of Object.keys(value).sort()) {
    const field = (value as Record<string, unknown>)[key];
    if (field !== undefined) fields.push(`${JSON.stringify(key)}:${canonicalJson(field)}`);
  }
  return `{${fields.join(',')}}`;
}

/** The hash of a record: SHA-256 of its `prevHash` and the canonical JSON of its other fields. */
export function hashRecord(record: Omit<AuditRecord, 'hash'> & { hash?: string }): string {
  const { hash: _hash, ...fields } = record;
  return createHash('sha256').update(record.prevHash).update(canonicalJson(fields)).digest('hex');
}

export type ChainVerification =
  | { ok: true; count: number; chains: number }
  | { ok: false; count: number; brokenAt: { id: string; seq: number; chain: string; position: number }; reason: string };

/**
 * Checks records in stored order: per chain, `seq` goes up by one, each `prevHash` is the hash
 * of the record before, and every hash recomputes. A chain may start past 1 (older records
 * rotated away) but then must continue unbroken. Names the first record that breaks.
 */
export async function verifyChain(records: Iterable<AuditRecord> | AsyncIterable<AuditRecord>): Promise<ChainVerification> {
  const last = new Map<string, { seq: number; hash: string }>();
  let count = 0;
  for await (const record of records) {
    count++;
    const broken = (reason: string): ChainVerification => ({
      ok: false,
      count,
      brokenAt: { id: String(record?.id), seq: Number(record?.seq), chain: String(record?.chain), position: count },
      reason,
    });
    if (typeof record !== 'object' || record === null || typeof record.hash !== 'string' || typeof record.prevHash !== 'string') {
      return broken('not an audit record (hash or prevHash missing)');
    }
    const previous = last.get(record.chain);
    if (previous) {
      if (record.seq !== previous.seq + 1) return broken(`seq ${record.seq} follows ${previous.seq}: a record is missing or out of order`);
      if (record.prevHash !== previous.hash) return broken('prevHash is not the hash of the record before it');
    } else if (record.seq === 1 && record.prevHash !== GENESIS_HASH) {
      return broken('the first record of a chain must have the genesis prevHash');
    }
    if (hashRecord(record) !== record.hash) return broken('its hash does not match its contents: the record was altered');
    last.set(record.chain, { seq: record.seq, hash: record.hash });
  }
  return { ok: true, count, chains: last.size };
}
