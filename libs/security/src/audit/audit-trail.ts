import { createHmac, hash, randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { batchBytesOf, canonicalJson, canonicalRecordJson, GENESIS_HASH, rememberBatchBytes } from './audit-chain';
import type { AuditForwarder, AuditForwardHealth } from './audit-forwarder';
import { AuditChainLock } from './audit-chain-lock';
import { AuditSpool } from './audit-spool';
import { RefusalAggregator } from './refusal-aggregator';
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
  /** Where records that do not fit in memory go while the sink is down (`buffered` only). */
  spoolFile: string | undefined;
  /** Refusals before any method ran, from one address for one reason, make one record (with a count) per window. */
  refusalWindowMs: number;
  /**
   * A command-line run's hold on its chain (the runs of the command line share one, one at a time):
   * the lock file, and how long a command waits for another's. None: the chain is this process's own.
   */
  chainLock?: { file: string; waitMs: number };
  /**
   * Longest wait at close for the forwarding sinks (ms; what they did not take waits in their
   * spools for the next start). @default the close's own timeout
   */
  forwardCloseMs?: number;
}

export interface AuditTrailHealth {
  sink: string;
  policy: AuditFailurePolicy;
  state: 'ok' | 'failing';
  /** Records waiting to be written. */
  queued: number;
  /** Records in the local spool, waiting for the sink (`buffered` policy). */
  spooled: number;
  spoolBytes: number;
  written: number;
  dropped: number;
  failures: number;
  lastError?: string;
  /** Each sink of `audit.forward` (a SIEM), delivered from its own spool. */
  forwards: AuditForwardHealth[];
}

export interface AuditQuery {
  principal?: string;
  target?: string;
  outcome?: AuditOutcome | string;
  method?: string;
  limit?: number;
}

const MAX_RETRY_DELAY_MS = 2_000;
/** A spool whose disk refused records is tried again after this long; what does not fit meanwhile is dropped. */
const SPOOL_RETRY_MS = 1_000;

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
  /** Chained records the sink could not take yet, on disk, in chain order (`buffered` only). */
  private readonly spool: AuditSpool | undefined;
  private spoolFailed = false;
  private spoolRetryAt = 0;
  private readonly refusals: RefusalAggregator;
  private readonly lock: AuditChainLock | undefined;

  constructor(
    private readonly sink: AuditSink,
    private readonly settings: AuditTrailSettings,
    /** Further sinks (a SIEM) that get every record once the trail's sink stored it. */
    readonly forwarders: readonly AuditForwarder[] = [],
  ) {
    this.retryDelayMs = settings.flushIntervalMs;
    this.spool = settings.policy === 'buffered' && settings.spoolFile ? new AuditSpool(settings.spoolFile) : undefined;
    this.refusals = new RefusalAggregator(settings.refusalWindowMs, (entry) => this.record(entry));
    this.lock = settings.chainLock
      ? new AuditChainLock(settings.chainLock.file, settings.chain, settings.chainLock.waitMs)
      : undefined;
  }

  /**
   * Opens the sink and finds where the chain stands. A sink that cannot open yet is retried by the
   * flusher. A chain shared by the command line's runs is taken first (waiting for another command's).
   * @throws Error when another command holds the chain for longer than its `chainLock` wait
   */
  async start(): Promise<void> {
    await this.lock?.take();
    for (const forwarder of this.forwarders) forwarder.start();
    await this.flushNow();
  }

  /** Whether a call may run now: under `fail-closed`, not while records cannot be written or kept. */
  admits(): boolean {
    if (this.settings.policy === 'buffered') return true;
    return !this.failing && this.opened && this.pending < this.settings.bufferSize;
  }

  /** Takes an entry (hot path: no I/O, no hashing). */
  record(entry: AuditEntry): void {
    if (this.closed) {
      this.drop(entry);
      return;
    }
    if (this.pending >= this.settings.bufferSize) {
      // Buffered: memory is full while the sink is down; what waits goes to the local spool.
      if (!this.spool || !this.spill(entry)) this.drop(entry);
      return;
    }
    this.waiting.push(entry);
    if (this.waiting.length >= this.settings.batchSize) this.schedule(0);
    else this.schedule(this.settings.flushIntervalMs);
  }

  /**
   * Takes a refusal made before any method ran (an unauthenticated request, a forbidden Host):
   * the first of a window from one address for one reason is recorded at once, the others only
   * counted, and one record with their `count` closes the window. A stranger's flood of requests
   * costs the trail a few records a minute, and every refusal is still accounted for.
   */
  recordRefusal(entry: AuditEntry): void {
    if (this.closed) this.drop(entry);
    else this.refusals.take(entry);
  }

  health(): AuditTrailHealth {
    return {
      sink: this.sink.name,
      policy: this.settings.policy,
      state: this.failing || !this.opened || this.spoolFailed ? 'failing' : 'ok',
      queued: this.pending,
      spooled: this.spool?.pending ?? 0,
      spoolBytes: this.spool?.bytes ?? 0,
      written: this.written,
      dropped: this.dropped,
      failures: this.failures,
      ...(this.lastError !== undefined && { lastError: this.lastError }),
      forwards: this.forwarders.map((forwarder) => forwarder.health()),
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
    while (this.unwritten > 0 || !this.opened) {
      await this.flushNow();
      if (this.unwritten === 0 && this.opened) break;
      if (Date.now() >= deadline) break;
      await new Promise((resolve) =>
        setTimeout(resolve, Math.min(this.retryDelayMs, Math.max(deadline - Date.now(), 0))),
      );
    }
    return this.unwritten;
  }

  /**
   * Flushes (up to `timeoutMs`) and closes the sink. Under `buffered`, what the sink could not take
   * stays in the spool for the next start; otherwise it is logged as lost.
   */
  async close(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.refusals.close();
    let unwritten = await this.flush(timeoutMs);
    this.closed = true;
    if (unwritten > 0 && this.spool && !this.spoolFailed) {
      // The batch in hand and everything waiting go to disk, after what is spooled already.
      if (this.batch.length > 0 && this.spoolRecords(this.batch)) this.batch = [];
      if (this.batch.length === 0 && this.waiting.length > 0) {
        const records = this.chainNext(this.waiting);
        if (this.spoolRecords(records)) this.waiting = [];
      }
      unwritten = this.pending;
      if (this.spool.pending > 0)
        this.logger.warn(
          `${this.spool.pending} audit record(s) wait in ${this.spool.file} for the sink; the next start writes them first`,
        );
    }
    if (unwritten > 0)
      this.logger.error(
        `${unwritten} audit record(s) could not be written before shutdown: ${this.lastError ?? 'sink unavailable'}`,
      );
    this.spool?.close();
    await this.sink
      .close?.()
      .catch((error: unknown) => this.logger.warn(`Closing the audit sink failed: ${(error as Error)?.message}`));
    // What the forwarding sinks could not take in the time left stays in their spools.
    const left = Math.min(Math.max(deadline - Date.now(), 100), this.settings.forwardCloseMs ?? Infinity);
    await Promise.all(this.forwarders.map((forwarder) => forwarder.close(left)));
    await this.lock?.release();
  }

  /** Records held in memory (waiting, and the batch being written). */
  private get pending(): number {
    return this.waiting.length + this.batch.length;
  }

  /** Records not in the sink yet: in memory and in the spool. */
  private get unwritten(): number {
    return this.pending + (this.spool?.pending ?? 0);
  }

  /**
   * Makes room for `entry`: the oldest entries waiting in memory (a batch of them, or `entry` itself
   * when none waits) go to the spool, chained in order. A batch at a time, so that no one request
   * pays for chaining the whole buffer. When the disk refuses them, the chain is as it was (no
   * record numbered and lost: no gap), what waited stays in memory, and false says `entry` did not fit.
   */
  private spill(entry: AuditEntry): boolean {
    if (!this.opened) return false; // the chain's head is not known yet: nothing can be numbered
    // A full disk is not asked again for every request: each try chains a batch in vain.
    if (this.spoolFailed && Date.now() < this.spoolRetryAt) return false;
    const head = { seq: this.seq, hash: this.lastHash };
    const taken = Math.min(this.waiting.length, this.settings.batchSize);
    const records = this.chainNext(taken > 0 ? this.waiting.slice(0, taken) : [entry]);
    if (!this.spoolRecords(records)) {
      this.seq = head.seq;
      this.lastHash = head.hash;
      return false;
    }
    if (taken > 0) {
      this.waiting.splice(0, taken);
      this.waiting.push(entry);
    }
    this.keepRecent(batchBytesOf(records), records.length);
    return true;
  }

  private spoolRecords(records: AuditRecord[]): boolean {
    try {
      this.spool!.append(batchBytesOf(records), records.length);
      this.spoolFailed = false;
      return true;
    } catch (error) {
      if (!this.spoolFailed)
        this.logger.error(
          `The audit spool ${this.spool!.file} cannot be written (${(error as Error).message}): records that do not fit in memory are dropped; free space on its disk or set audit.spoolFile`,
        );
      this.spoolFailed = true;
      this.spoolRetryAt = Date.now() + SPOOL_RETRY_MS;
      return false;
    }
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
      else if (this.waiting.length > 0)
        this.schedule(this.waiting.length >= this.settings.batchSize ? 0 : this.settings.flushIntervalMs);
    });
    return this.flushing;
  }

  private async writeOnce(): Promise<void> {
    try {
      if (!this.opened) await this.open();
      // Chain order: the batch in hand, then the spool (chained after it), then what waits (not chained yet).
      while (this.batch.length > 0 || (this.spool?.pending ?? 0) > 0 || this.waiting.length > 0) {
        if (this.batch.length === 0 && this.spool && this.spool.pending > 0) {
          const { records, end, bytes } = this.spool.next(this.settings.batchSize);
          rememberBatchBytes(records, bytes);
          if (records.length > 0) await this.sink.append(records);
          this.spool.advance(end, records.length);
          this.written += records.length;
          this.forward(records);
        } else {
          if (this.batch.length === 0) {
            this.batch = this.chainNext(this.waiting.splice(0, this.settings.batchSize));
            this.keepRecent(batchBytesOf(this.batch), this.batch.length);
          }
          await this.sink.append(this.batch);
          this.written += this.batch.length;
          this.forward(this.batch);
          this.batch = [];
        }
        if (this.failing) this.recovered();
      }
      if (this.failing) this.recovered(); // opened at last, with nothing waiting
      // Everything is written: a disk that refused the spool before is no reason to report a failure now.
      this.spoolFailed = false;
    } catch (error) {
      const message = (error as Error)?.message ?? String(error);
      if (!this.failing)
        this.logger.error(
          `The audit sink "${this.sink.name}" cannot write (${message}); ${this.settings.policy === 'fail-closed' ? 'calls are refused' : 'records are buffered'} until it can`,
        );
      this.failing = true;
      this.failures++;
      this.lastError = message;
      this.retryDelayMs = Math.min(this.retryDelayMs * 2, MAX_RETRY_DELAY_MS);
    }
  }

  /** Records the sink stored go on to every forwarding sink (each appends them to its spool). */
  private forward(records: readonly AuditRecord[]): void {
    for (const forwarder of this.forwarders) forwarder.take(records);
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
    // What a previous run spooled is newer than anything in the sink: the chain goes on from there.
    const tail = this.spool?.load(this.settings.chain) ?? (await this.sink.tail?.(this.settings.chain));
    if (tail) {
      this.seq = tail.seq;
      this.lastHash = tail.hash;
    }
    if (this.spool && this.spool.pending > 0) await this.sink.tail?.(this.settings.chain); // the sink learns where its chain stands
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
      if (entry.count !== undefined) record.count = entry.count;
      if (entry.protocolVersion !== undefined) record.protocolVersion = entry.protocolVersion;
      if (entry.route !== undefined) record.route = entry.route;
      if (entry.downstream !== undefined) record.downstream = entry.downstream;
      if (entry.origin !== undefined) record.origin = entry.origin;
      if (entry.server !== undefined) record.server = entry.server;
      if (entry.governance !== undefined) record.governance = entry.governance;
      // What the hash covers (as `hashRecord`): flattened once by hashing, the same text gives the line.
      const hashed = record.prevHash + canonicalRecordJson(record, redacted === args ? argsJson : undefined);
      record.hash = hash('sha256', hashed);
      this.lastHash = record.hash;
      text += `${hashed.slice(record.prevHash.length, -1)},"hash":"${record.hash}"}\n`;
      batch[index] = record;
    }
    rememberBatchBytes(batch, Buffer.from(text));
    return batch;
  }

  /** Keeps a batch for `recent()`, and lets go of the oldest batches not needed to hold `recentSize` records. */
  private keepRecent(bytes: Buffer, count: number): void {
    this.recentBatches.push({ bytes, count });
    this.recentCount += count;
    while (this.recentCount - this.recentBatches[0].count >= this.settings.recentSize)
      this.recentCount -= this.recentBatches.shift()!.count;
  }

  private isoTime(at: number): string {
    if (this.lastTime.at !== at) this.lastTime = { at, iso: new Date(at).toISOString() };
    return this.lastTime.iso;
  }

  private digest(text: string): string {
    const key = this.settings.digestKey;
    return key
      ? `hmac-sha256:${createHmac('sha256', key).update(text).digest('hex')}`
      : `sha256:${hash('sha256', text)}`;
  }

  private drop(entry: AuditEntry): void {
    this.dropped++;
    const now = Date.now();
    // Every drop is counted; the log says so at most once a second, with the running total.
    if (now - this.lastDropLog >= 1_000) {
      this.lastDropLog = now;
      this.logger.error(
        `Audit record dropped (${entry.method ?? 'transport'} ${entry.target ?? ''} by ${entry.principal ?? 'unknown'}, outcome ${entry.outcome}): ` +
          `the buffer of ${this.settings.bufferSize} is full${this.spoolFailed ? ` and the spool ${this.spool!.file} cannot be written` : ''}` +
          `${this.closed ? ' or the trail is closed' : ''}; ${this.dropped} dropped so far`,
      );
    }
  }
}
