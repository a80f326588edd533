import { createHmac, hash, randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { canonicalJson, canonicalRecordJson, GENESIS_HASH, rememberBatchBytes } from './audit-chain';
import type { AuditEntry, AuditOutcome, AuditRecord } from './audit-record';
import type { AuditSink } from './audit-sink';
import { redactSensitive } from './sensitive-fields';

/** How the trail behaves when its sink cannot write. */
export type AuditFailurePolicy = 'fail-closed' | 'buffered';

export interface AuditTrailSettings {
  policy: AuditFailurePolicy;
  /** Most records held in memory (waiting plus being written). */
  bufferSize: number;
  flushIntervalMs: number;
  batchSize: number;
  /** This instance's chain id. */
  chain: string;
  /** Records kept in memory for the dashboard. */
  recentSize: number;
  /** Key of the argument digests (HMAC-SHA256), so low-entropy sensitive values cannot be guessed from them. */
  digestKey: string | undefined;
}

export interface AuditTrailHealth {
  sink: string;
  policy: AuditFailurePolicy;
  state: 'ok' | 'failing';
  /** Records waiting to be written. */
  queued: number;
  written: number;
  dropped: number;
  failures: number;
  lastError?: string;
}

export interface AuditQuery {
  principal?: string;
  target?: string;
  outcome?: AuditOutcome | string;
  method?: string;
  limit?: number;
}

const MAX_RETRY_DELAY_MS = 2_000;

/**
 * The audit trail: takes one entry per audited request without blocking it, and writes them to
 * the sink in batches, chained by hash. A batch that fails is retried with the very same records
 * until it is stored; meanwhile entries wait in a bounded buffer. Under `fail-closed`, calls are
 * refused (`admits()` is false) while the sink cannot write or the buffer is full; under
 * `buffered`, calls go on and a record that does not fit is dropped, counted and logged.
 */
export class AuditTrail {
  private readonly logger = new Logger('McpAudit');
  private waiting: AuditEntry[] = [];
  /** The batch being written (kept, with its ids and hashes, until the sink takes it). */
  private batch: AuditRecord[] = [];
  /**
   * The newest batches as written (JSON lines, UTF-8), oldest first, together holding at least
   * `recentSize` records: a buffer per batch, outside the JS heap, costs the collector nothing to keep.
   */
  private readonly recentBatches: { bytes: Buffer; count: number }[] = [];
  private recentCount = 0;
  /** The last arrival time turned into ISO text (many records share a millisecond). */
  private lastTime = { at: NaN, iso: '' };
  private seq = 0;
  private lastHash = GENESIS_HASH;
  private opened = false;
  private failing = false;
  private lastError: string | undefined;
  private written = 0;
  private dropped = 0;
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private retryDelayMs: number;
  private closed = false;
  private lastDropLog = 0;

  constructor(
    private readonly sink: AuditSink,
    private readonly settings: AuditTrailSettings,
  ) {
    this.retryDelayMs = settings.flushIntervalMs;
  }

  /** Opens the sink and finds where the chain stands. A sink that cannot open yet is retried by the flusher. */
  async start(): Promise<void> {
    await this.flushNow();
  }

  /** Whether a call may run now: under `fail-closed`, not while records cannot be written or kept. */
  admits(): boolean {
    if (this.settings.policy === 'buffered') return true;
    return !this.failing && this.opened && this.pending < this.settings.bufferSize;
  }

  /** Takes an entry (hot path: no I/O, no hashing). */
  record(entry: AuditEntry): void {
    if (this.pending >= this.settings.bufferSize || this.closed) {
      this.drop(entry);
      return;
    }
    this.waiting.push(entry);
    if (this.waiting.length >= this.settings.batchSize) this.schedule(0);
    else this.schedule(this.settings.flushIntervalMs);
  }

  health(): AuditTrailHealth {
    return {
      sink: this.sink.name,
      policy: this.settings.policy,
      state: this.failing || !this.opened ? 'failing' : 'ok',
      queued: this.pending,
      written: this.written,
      dropped: this.dropped,
      failures: this.failures,
      ...(this.lastError !== undefined && { lastError: this.lastError }),
    };
  }

  /** Asks the sink whether it is reachable (when it can tell); rejects when it is not. */
  async ping(): Promise<void> {
    await this.sink.ping?.();
  }

  /** The newest records (written or on their way), newest first, filtered. */
  recent(query: AuditQuery = {}): AuditRecord[] {
    const size = this.settings.recentSize;
    const limit = Math.min(Math.max(query.limit ?? 50, 1), size);
    const found: AuditRecord[] = [];
    let seen = 0;
    for (let b = this.recentBatches.length - 1; b >= 0 && found.length < limit && seen < size; b--) {
      const lines = this.recentBatches[b].bytes.toString('utf8').split('\n');
      // The text ends with a newline: its last piece is empty.
      for (let i = lines.length - 2; i >= 0 && found.length < limit && seen < size; i--, seen++) {
        const record = JSON.parse(lines[i]) as AuditRecord;
        if (query.principal !== undefined && record.principal !== query.principal) continue;
        if (query.target !== undefined && record.target !== query.target) continue;
        if (query.outcome !== undefined && record.outcome !== query.outcome) continue;
        if (query.method !== undefined && record.method !== query.method) continue;
        found.push(record);
      }
    }
    return found;
  }

  /** Writes everything taken so far; retries until `timeoutMs`. Returns how many records are still unwritten. */
  async flush(timeoutMs = 10_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (this.pending > 0 || !this.opened) {
      await this.flushNow();
      if (this.pending === 0 && this.opened) break;
      if (Date.now() >= deadline) break;
      await new Promise((resolve) => setTimeout(resolve, Math.min(this.retryDelayMs, Math.max(deadline - Date.now(), 0))));
    }
    return this.pending;
  }

  /** Flushes (up to `timeoutMs`) and closes the sink; what could not be written is logged as lost. */
  async close(timeoutMs = 10_000): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const unwritten = await this.flush(timeoutMs);
    this.closed = true;
    if (unwritten > 0) this.logger.error(`${unwritten} audit record(s) could not be written before shutdown: ${this.lastError ?? 'sink unavailable'}`);
    await this.sink.close?.().catch((error: unknown) => this.logger.warn(`Closing the audit sink failed: ${(error as Error)?.message}`));
  }

  private get pending(): number {
    return this.waiting.length + this.batch.length;
  }

  private schedule(delayMs: number): void {
    if (this.closed || this.flushing) return;
    if (this.timer) {
      if (delayMs > 0) return;
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flushNow();
    }, delayMs);
    this.timer.unref?.();
  }

  /** Runs one flush at a time; callers share the one in progress. */
  private flushNow(): Promise<void> {
    this.flushing ??= this.writeOnce().finally(() => {
      this.flushing = undefined;
      if (this.closed) return;
      if (this.failing) this.schedule(this.retryDelayMs);
      else if (this.waiting.length > 0) this.schedule(this.waiting.length >= this.settings.batchSize ? 0 : this.settings.flushIntervalMs);
    });
    return this.flushing;
  }

  private async writeOnce(): Promise<void> {
    try {
      if (!this.opened) await this.open();
      while (this.batch.length > 0 || this.waiting.length > 0) {
        if (this.batch.length === 0) this.batch = this.chainNext(this.waiting.splice(0, this.settings.batchSize));
        await this.sink.append(this.batch);
        this.written += this.batch.length;
        this.batch = [];
        if (this.failing) this.recovered();
      }
      if (this.failing) this.recovered(); // opened at last, with nothing waiting
    } catch (error) {
      const message = (error as Error)?.message ?? String(error);
      if (!this.failing) this.logger.error(`The audit sink "${this.sink.name}" cannot write (${message}); ${this.settings.policy === 'fail-closed' ? 'calls are refused' : 'records are buffered'} until it can`);
      this.failing = true;
      this.failures++;
      this.lastError = message;
      this.retryDelayMs = Math.min(this.retryDelayMs * 2, MAX_RETRY_DELAY_MS);
    }
  }

  /** The sink took a batch again: calls are admitted again while the backlog drains. */
  private recovered(): void {
    this.logger.log(`The audit sink "${this.sink.name}" writes again; ${this.pending} record(s) still waiting`);
    this.failing = false;
    this.lastError = undefined;
    this.retryDelayMs = this.settings.flushIntervalMs;
  }

  private async open(): Promise<void> {
    await this.sink.open?.();
    const tail = await this.sink.tail?.(this.settings.chain);
    if (tail) {
      this.seq = tail.seq;
      this.lastHash = tail.hash;
    }
    this.opened = true;
  }

  /** Turns entries into records: redacted, digested, numbered and linked (and their JSON lines, made once). */
  private chainNext(entries: readonly AuditEntry[]): AuditRecord[] {
    const batch: AuditRecord[] = new Array(entries.length);
    let text = '';
    for (let index = 0; index < entries.length; index++) {
      const entry = entries[index];
      const args = entry.arguments;
      // The arguments' canonical text serves the digest and, when nothing was redacted, the record too.
      const argsJson = args === undefined ? undefined : canonicalJson(args);
      const redacted = args === undefined ? null : redactSensitive(args, entry.sensitive);
      const record: AuditRecord = {
        id: randomUUID(),
        time: this.isoTime(entry.startedAt),
        chain: this.settings.chain,
        seq: ++this.seq,
        prevHash: this.lastHash,
        principal: entry.principal ?? null,
        transport: entry.transport,
        sessionId: entry.sessionId ?? null,
        client: entry.client ?? null,
        method: entry.method,
        target: entry.target ?? null,
        arguments: redacted,
        argumentsDigest: argsJson === undefined ? null : this.digest(argsJson),
        outcome: entry.outcome,
        errorCode: entry.errorCode ?? null,
        error: entry.error ?? null,
        latencyMs: Math.round(entry.latencyMs * 1000) / 1000,
        traceId: entry.traceId ?? null,
        remoteAddress: entry.remoteAddress ?? null,
        hash: '',
      };
      // What the hash covers (as `hashRecord`): flattened once by hashing, the same text gives the line.
      const hashed = record.prevHash + canonicalRecordJson(record, redacted === args ? argsJson : undefined);
      record.hash = hash('sha256', hashed);
      this.lastHash = record.hash;
      text += `${hashed.slice(record.prevHash.length, -1)},"hash":"${record.hash}"}\n`;
      batch[index] = record;
    }
    const bytes = Buffer.from(text);
    rememberBatchBytes(batch, bytes);
    this.keepRecent(bytes, entries.length);
    return batch;
  }

  /** Keeps a batch for `recent()`, and lets go of the oldest batches not needed to hold `recentSize` records. */
  private keepRecent(bytes: Buffer, count: number): void {
    this.recentBatches.push({ bytes, count });
    this.recentCount += count;
    while (this.recentCount - this.recentBatches[0].count >= this.settings.recentSize) this.recentCount -= this.recentBatches.shift()!.count;
  }

  private isoTime(at: number): string {
    if (this.lastTime.at !== at) this.lastTime = { at, iso: new Date(at).toISOString() };
    return this.lastTime.iso;
  }

  private digest(text: string): string {
    const key = this.settings.digestKey;
    return key ? `hmac-sha256:${createHmac('sha256', key).update(text).digest('hex')}` : `sha256:${hash('sha256', text)}`;
  }

  private drop(entry: AuditEntry): void {
    this.dropped++;
    const now = Date.now();
    // Every drop is counted; the log says so at most once a second, with the running total.
    if (now - this.lastDropLog >= 1_000) {
      this.lastDropLog = now;
      this.logger.error(
        `Audit record dropped (${entry.method ?? 'transport'} ${entry.target ?? ''} by ${entry.principal ?? 'unknown'}, outcome ${entry.outcome}): ` +
          `the buffer of ${this.settings.bufferSize} is full${this.closed ? ' or the trail is closed' : ''}; ${this.dropped} dropped so far`,
      );
    }
  }
}
