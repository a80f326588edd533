import {
  closeSync,
  existsSync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';
import type { AuditRecord } from './audit-record';
import type { AuditChainTail } from './audit-sink';

/** At most this much of the spool is read at a time (a replayed chunk of records is a few hundred KB). */
const READ_BLOCK = 2 ** 20;

/**
 * A local append-only file of chained audit records that the sink could not take yet (the
 * `buffered` policy's overflow): written in chain order, replayed in the same order when the sink
 * returns, then emptied. How far it was replayed is kept beside it (`<file>.offset`), so a host
 * that stops halfway replays the rest at its next start, and a record the sink took just before
 * a crash is offered again (sinks store a record once: by id, or by its place in its chain).
 *
 * Writes are synchronous and small (a batch of lines): the spool is written only while the sink
 * is down and memory is full, never on a healthy request path.
 */
export class AuditSpool {
  private fd: number | undefined;
  /** Bytes of the file that are replayed already. */
  private offset = 0;
  private size = 0;
  /** Records in the file not replayed yet. */
  private count = 0;

  constructor(readonly file: string) {}

  /** Records waiting in the spool. */
  get pending(): number {
    return this.count;
  }

  /** Bytes of records waiting in the spool. */
  get bytes(): number {
    return this.size - this.offset;
  }

  /** Where the next replay starts, and where the file ends (a batch appended spans from one end to the next). */
  get span(): { offset: number; size: number } {
    return { offset: this.offset, size: this.size };
  }

  /**
   * Opens the spool and finds what a previous run left in it, reading it a block at a time (an
   * outage can leave gigabytes). A line the host could not finish writing (it died mid-write) is
   * cut off: it holds no whole record, and what is appended next must start a line of its own.
   * @returns the last record it holds for `chain`, which is newer than anything in the sink (none asked: undefined)
   */
  load(chain?: string): AuditChainTail | undefined {
    if (!existsSync(this.file)) return undefined;
    this.openFile();
    this.offset = Math.min(this.readOffset(), this.size);
    this.count = 0;
    let last: Buffer | undefined;
    let whole = this.offset;
    for (const { line, end } of this.lines(this.offset)) {
      whole = end;
      if (isBlank(line)) continue;
      this.count++;
      last = line;
    }
    if (whole < this.size) {
      ftruncateSync(this.fd!, whole);
      this.size = whole;
    }
    if (!last || chain === undefined) return undefined;
    const record = JSON.parse(last.toString('utf8')) as AuditRecord;
    // One spool per chain by default; only a spool shared across a renamed chain needs the whole read.
    return record.chain === chain ? { seq: record.seq, hash: record.hash } : this.lastOf(chain);
  }

  /**
   * Appends chained records (their JSON lines, as the sink would write them).
   * @throws when the disk cannot take them (the caller counts them as dropped)
   */
  append(lines: Buffer, count: number): void {
    this.openFile();
    const before = this.size;
    try {
      for (let written = 0; written < lines.length;)
        written += writeSync(this.fd!, lines, written, lines.length - written);
    } catch (error) {
      // A partial line must not be replayed as a record: cut it off again.
      try {
        ftruncateSync(this.fd!, before);
      } catch {
        // the next append starts from `before` anyway
      }
      throw error;
    }
    this.size = before + lines.length;
    this.count += count;
  }

  /** The next records to replay, oldest first, where they end, and their lines as stored (each ended by a newline). */
  next(max: number): { records: AuditRecord[]; end: number; bytes: Buffer } {
    const records: AuditRecord[] = [];
    const lines: Buffer[] = [];
    let end = this.offset;
    for (const { line, end: after } of this.lines(this.offset)) {
      if (records.length >= max) break;
      end = after;
      if (isBlank(line)) continue;
      records.push(JSON.parse(line.toString('utf8')) as AuditRecord);
      lines.push(line, NEWLINE);
    }
    return { records, end, bytes: Buffer.concat(lines) };
  }

  /** The records up to `end` are in the sink: remembered, and the file emptied once all are. */
  advance(end: number, count: number): void {
    this.count -= count;
    // Nothing left but (at most) a line a crash cut short: the spool is empty.
    if (this.count <= 0 || end >= this.size) {
      ftruncateSync(this.fd!, 0);
      this.offset = 0;
      this.size = 0;
      this.count = 0;
    } else {
      this.offset = end;
    }
    writeFileSync(this.offsetFile, String(this.offset), { mode: 0o600 });
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private get offsetFile(): string {
    return `${this.file}.offset`;
  }

  private openFile(): void {
    if (this.fd !== undefined) return;
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    this.fd = openSync(this.file, 'a+', 0o600);
    this.size = fstatSync(this.fd).size;
  }

  private readOffset(): number {
    try {
      const offset = Number(readFileSync(this.offsetFile, 'utf8'));
      return Number.isInteger(offset) && offset >= 0 ? offset : 0;
    } catch {
      return 0;
    }
  }

  /** The last record of `chain` not replayed yet. */
  private lastOf(chain: string): AuditChainTail | undefined {
    let tail: AuditChainTail | undefined;
    for (const { line } of this.lines(this.offset)) {
      if (isBlank(line)) continue;
      const record = JSON.parse(line.toString('utf8')) as AuditRecord;
      if (record.chain === chain) tail = { seq: record.seq, hash: record.hash };
    }
    return tail;
  }

  /** The whole lines from `start` (without their newline), each with the offset after it, read a block at a time. */
  private *lines(start: number): Generator<{ line: Buffer; end: number }> {
    let position = start;
    let carry: Buffer | undefined;
    while (position < this.size) {
      const block = Buffer.allocUnsafe(Math.min(READ_BLOCK, this.size - position));
      const read = readSync(this.fd!, block, 0, block.length, position);
      if (read <= 0) return;
      const data = carry ? Buffer.concat([carry, block.subarray(0, read)]) : block.subarray(0, read);
      const base = position - (carry?.length ?? 0);
      let from = 0;
      for (let newline = data.indexOf(0x0a); newline >= 0; newline = data.indexOf(0x0a, from)) {
        yield { line: data.subarray(from, newline), end: base + newline + 1 };
        from = newline + 1;
      }
      position += read;
      carry = from < data.length ? data.subarray(from) : undefined;
    }
  }
}

const NEWLINE = Buffer.from('\n');

/** An empty line (or only whitespace) holds no record. */
function isBlank(line: Buffer): boolean {
  for (const byte of line) if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return false;
  return true;
}
