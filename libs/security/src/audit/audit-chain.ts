import { hash } from 'node:crypto';
import type { AuditRecord } from './audit-record';

/** `prevHash` of a chain's first record. */
export const GENESIS_HASH = '0'.repeat(64);

/**
 * JSON with object keys sorted at every level and no whitespace, so the same value always has
 * the same text (and hash), whatever order its fields were built in or a database returns them.
 */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'string') return quote(value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let text = '[';
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      text +=
        (index > 0 ? ',' : '') +
        (item === undefined || typeof item === 'function' || typeof item === 'symbol' ? 'null' : canonicalJson(item));
    }
    return `${text}]`;
  }
  const keys = sortedKeys(value);
  let text = '{';
  let first = true;
  for (const key of keys) {
    const field = (value as Record<string, unknown>)[key];
    if (field === undefined || typeof field === 'function' || typeof field === 'symbol') continue;
    text += `${first ? '' : ','}${quote(key)}:${canonicalJson(field)}`;
    first = false;
  }
  return `${text}}`;
}

/**
 * `canonicalJson` of a record without its hash, written out field by field (the trail's hot
 * spot: several times faster than the generic walk, and identical to it — a spec checks).
 * Fields the trail itself makes (id, time, hashes, numbers, digest) need no escaping.
 * @param argumentsJson `canonicalJson(r.arguments)`, when the caller has it already
 */
export function canonicalRecordJson(r: Omit<AuditRecord, 'hash'>, argumentsJson?: string): string {
  return (
    `{"arguments":${argumentsJson ?? nested(r.arguments)},"argumentsDigest":${r.argumentsDigest === null ? 'null' : `"${r.argumentsDigest}"`}` +
    `,"chain":${quote(r.chain)},"client":${nested(r.client)}${r.count === undefined ? '' : `,"count":${r.count}`}${r.downstream === undefined ? '' : `,"downstream":${canonicalJson(r.downstream)}`},"error":${text(r.error)},"errorCode":${r.errorCode ?? 'null'}` +
    `${r.governance === undefined ? '' : `,"governance":${nested(r.governance)}`}` +
    `,"id":"${r.id}","latencyMs":${r.latencyMs},"method":${text(r.method)}${r.origin === undefined ? '' : `,"origin":${quote(r.origin)}`},"outcome":"${r.outcome}","prevHash":"${r.prevHash}"` +
    `,"principal":${text(r.principal)}${r.protocolVersion === undefined ? '' : `,"protocolVersion":${quote(r.protocolVersion)}`},"remoteAddress":${text(r.remoteAddress)}${r.route === undefined ? '' : `,"route":${quote(r.route)}`},"seq":${r.seq}${r.server === undefined ? '' : `,"server":${quote(r.server)}`},"sessionId":${text(r.sessionId)}` +
    `,"target":${text(r.target)},"time":"${r.time}","traceId":${text(r.traceId)},"transport":"${r.transport}"}`
  );
}

/** Printable ASCII but `"` and `\`: JSON writes such a string as it is, between quotes. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
/** `JSON.stringify` of a string, at a third of its cost for the plain ones (names, ids, addresses). */
const quote = (value: string): string => (PLAIN.test(value) ? `"${value}"` : JSON.stringify(value));
const text = (value: string | null): string => (value === null ? 'null' : quote(value));
const nested = (value: unknown): string =>
  value === null || typeof value !== 'object' ? JSON.stringify(value) : canonicalJson(value);

/** SHA-256 (hex) of a record's `prevHash` and the canonical JSON of its other fields. */
export function hashRecord(record: Omit<AuditRecord, 'hash'> & { hash?: string }): string {
  const { hash: _hash, ...fields } = record;
  return hash('sha256', record.prevHash + canonicalJson(fields));
}

/** What `verifyChain` found: every record and link verified, or the first record that breaks the chain and why. */
export type ChainVerification =
  | { ok: true; count: number; chains: number; repeats?: number }
  | {
      ok: false;
      count: number;
      brokenAt: { id: string; seq: number; chain: string; position: number };
      reason: string;
    };

/** How `verifyChain` reads what it is given. */
export interface ChainVerificationOptions {
  /**
   * What a delivery that retries (syslog over TCP, a webhook) may have left twice: a record equal
   * to one already verified (same chain, seq and hash, and its hash recomputes) is skipped and
   * counted as a repeat instead of breaking the chain. A repeat with other contents still breaks it.
   * @default false
   */
  repeats?: boolean;
}

/** How many of a chain's hashes are remembered to recognise a repeat. */
const REPEAT_WINDOW = 100_000;

/**
 * Checks records in stored order: per chain, `seq` goes up by one, each `prevHash` is the hash
 * of the record before, and every hash recomputes. A chain may start past 1 (older records
 * rotated away) but then must continue unbroken. Names the first record that breaks.
 */
export async function verifyChain(
  records: Iterable<AuditRecord> | AsyncIterable<AuditRecord>,
  options: ChainVerificationOptions = {},
): Promise<ChainVerification> {
  const last = new Map<string, { seq: number; hash: string }>();
  const seen = new Map<string, Map<number, string>>();
  let count = 0;
  let repeats = 0;
  for await (const record of records) {
    count++;
    const broken = (reason: string): ChainVerification => ({
      ok: false,
      count,
      brokenAt: { id: String(record?.id), seq: Number(record?.seq), chain: String(record?.chain), position: count },
      reason,
    });
    if (
      typeof record !== 'object' ||
      record === null ||
      typeof record.hash !== 'string' ||
      typeof record.prevHash !== 'string'
    ) {
      return broken('not an audit record (hash or prevHash missing)');
    }
    const previous = last.get(record.chain);
    if (options.repeats && previous && record.seq <= previous.seq) {
      const known = seen.get(record.chain)?.get(record.seq);
      if (known === undefined) return broken(`seq ${record.seq} follows ${previous.seq}: a record is out of order`);
      if (known !== record.hash || hashRecord(record) !== record.hash)
        return broken(`it repeats seq ${record.seq} with other contents: the record was altered`);
      repeats++;
      continue;
    }
    if (previous) {
      if (record.seq !== previous.seq + 1)
        return broken(`seq ${record.seq} follows ${previous.seq}: a record is missing or out of order`);
      if (record.prevHash !== previous.hash) return broken('prevHash is not the hash of the record before it');
    } else if (record.seq === 1 && record.prevHash !== GENESIS_HASH) {
      return broken('the first record of a chain must have the genesis prevHash');
    }
    if (hashRecord(record) !== record.hash)
      return broken('its hash does not match its contents: the record was altered');
    last.set(record.chain, { seq: record.seq, hash: record.hash });
    if (options.repeats) {
      let hashes = seen.get(record.chain);
      if (!hashes) seen.set(record.chain, (hashes = new Map()));
      hashes.set(record.seq, record.hash);
      if (hashes.size > REPEAT_WINDOW) hashes.delete(hashes.keys().next().value!);
    }
  }
  return { ok: true, count, chains: last.size, ...(options.repeats && { repeats }) };
}

const batchBytes = new WeakMap<readonly AuditRecord[], Buffer>();

/** Remembers a batch's JSON lines (UTF-8) made while hashing it, so a sink need not serialize it again. */
export function rememberBatchBytes(batch: readonly AuditRecord[], bytes: Buffer): void {
  batchBytes.set(batch, bytes);
}

/** The records as JSON lines in UTF-8 (each: its canonical fields, then `hash`), one per line. */
export function batchBytesOf(records: readonly AuditRecord[]): Buffer {
  return batchBytes.get(records) ?? Buffer.from(linesOf(records));
}

/** The records as JSON lines (each: its canonical fields, then `hash`), one per line. */
export function batchText(records: readonly AuditRecord[]): string {
  return batchBytes.get(records)?.toString('utf8') ?? linesOf(records);
}

function linesOf(records: readonly AuditRecord[]): string {
  let lines = '';
  for (const record of records) lines += `${JSON.stringify(record)}\n`;
  return lines;
}

/** The object's keys in order; most objects already have them so, and are not sorted again. */
function sortedKeys(value: object): string[] {
  const keys = Object.keys(value);
  for (let index = 1; index < keys.length; index++) if (keys[index - 1] > keys[index]) return keys.sort();
  return keys;
}
