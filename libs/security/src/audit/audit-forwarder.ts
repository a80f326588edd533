import { Logger } from '@nestjs/common';
import { batchBytesOf, rememberBatchBytes } from './audit-chain';
import type { AuditRecord } from './audit-record';
import type { AuditSink } from './audit-sink';
import { AuditSpool } from './audit-spool';

/** Batches kept in memory for delivery without reading the spool back (about 5,000 records at the default batch size). */
const MAX_RECENT_BATCHES = 10;

/** One forwarding sink's state, in readiness, metrics and the dashboard. */
export interface AuditForwardHealth {
  sink: string;
  /** `failing` while the sink refuses records (they wait in the spool) or the spool cannot be written. */
  state: 'ok' | 'failing';
  /** Records waiting in the spool for this sink. */
  spooled: number;
  spoolBytes: number;
  delivered: number;
  /** Failed deliveries (each retried with the very same records). */
  failures: number;
  /** Records the spool's disk could not take. */
  dropped: number;
  lastError?: string;
}

export interface AuditForwarderSettings {
  /** Records per delivery. */
  batchSize: number;
  /** This sink's spool: every record goes through it, so none is lost while the sink is down or the host stops. */
  spoolFile: string;
  /** First wait after a failed delivery (doubled up to `maxRetryDelayMs`, with jitter). */
  retryDelayMs: number;
  maxRetryDelayMs: number;
}

/**
 * Hands the trail's records to one more sink (a SIEM: syslog, a webhook, OTLP) without ever
 * holding the trail up. Records the trail's own sink has stored are appended to this sink's
 * spool file (one write per batch, the lines the trail made already), and delivered from there
 * in chain order, one batch at a time: a batch that fails is retried with the very same records,
 * after a back-off that doubles up to `maxRetryDelayMs`. What was not delivered when the host
 * stops waits in the spool for the next start. Each forwarder has its own spool and health, so
 * one SIEM that is down delays no other.
 */
export class AuditForwarder {
  private readonly logger: Logger;
  private readonly spool: AuditSpool;
  private opened = false;
  private failing = false;
  private lastError: string | undefined;
  private delivered = 0;
  private failures = 0;
  private dropped = 0;
  private delay: number;
  /** The batch being delivered (kept, with where it ends in the spool, until the sink takes it). */
  private inFlight: { records: AuditRecord[]; end: number } | undefined;
  private pumping: Promise<void> | undefined;
  /**
   * The batches taken lately, as the trail made them (records and lines), with where each sits in
   * the spool: delivering one of them reads nothing back from the file. Only the disk copy
   * counts; this is a shortcut past reading and parsing it, dropped when it falls behind.
   */
  private recent: { records: readonly AuditRecord[]; start: number; end: number }[] = [];
  private wake: (() => void) | undefined;
  private sleeper: NodeJS.Timeout | undefined;
  private stopped = false;
  /** The spool is closed: a delivery that comes back now leaves it as it is. */
  private closed = false;

  constructor(
    readonly sink: AuditSink,
    private readonly settings: AuditForwarderSettings,
  ) {
    this.logger = new Logger(`McpAudit:${sink.name}`);
    this.spool = new AuditSpool(settings.spoolFile);
    this.delay = settings.retryDelayMs;
  }

  /** Finds what a previous run left undelivered, and starts delivering it. */
  start(): void {
    this.spool.load();
    this.kick();
  }

  /**
   * Takes records the trail stored (from its flusher, never a request): one append to the spool.
   * A disk that refuses them drops them, counted and logged.
   */
  take(records: readonly AuditRecord[]): void {
    if (this.stopped || records.length === 0) return;
    const start = this.spool.span.size;
    try {
      this.spool.append(batchBytesOf(records), records.length);
      if (this.recent.length < MAX_RECENT_BATCHES) this.recent.push({ records, start, end: this.spool.span.size });
    } catch (error) {
      this.dropped += records.length;
      this.fail(`the spool ${this.spool.file} cannot be written: ${(error as Error).message}`);
      return;
    }
    this.kick();
  }

  health(): AuditForwardHealth {
    return {
      sink: this.sink.name,
      state: this.failing ? 'failing' : 'ok',
      spooled: this.spool.pending,
      spoolBytes: this.spool.bytes,
      delivered: this.delivered,
      failures: this.failures,
      dropped: this.dropped,
      ...(this.lastError !== undefined && { lastError: this.lastError }),
    };
  }

  /** Whether the sink answers now (when it can tell). */
  async ping(): Promise<void> {
    await this.sink.ping?.();
  }

  /**
   * Delivers what waits (up to `timeoutMs`) while the sink takes it, then closes the sink; the rest
   * stays in the spool for the next start. A sink that fails (down, refusing) is not tried again
   * and again until the time is up: its records are safe in the spool, and a stopping process
   * (a command-line run above all) does not wait for it. A delivery in flight is waited for within
   * `timeoutMs`.
   */
  async close(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.spool.pending > 0 && !this.failing && Date.now() < deadline) {
      this.kick(true);
      await Promise.race([this.pumping, new Promise((resolve) => setTimeout(resolve, 20))]);
    }
    this.stopped = true;
    this.wakeUp();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.pumping,
      new Promise((resolve) => (timer = setTimeout(resolve, Math.max(deadline - Date.now(), 0)))),
    ]);
    clearTimeout(timer);
    // A delivery still in flight no longer moves the spool: what it carried is delivered again next time.
    this.closed = true;
    if (this.spool.pending > 0)
      this.logger.warn(
        `${this.spool.pending} audit record(s) wait in ${this.spool.file} for ${this.sink.name}` +
          `${this.lastError ? `, which cannot take them now (${this.lastError})` : ''}: the next start delivers them`,
      );
    this.spool.close();
    await this.sink
      .close?.()
      .catch((error: unknown) => this.logger.warn(`Closing the sink failed: ${(error as Error)?.message}`));
  }

  /** Starts the delivery loop (or, `now`, cuts its back-off short). */
  private kick(now = false): void {
    if (now) this.wakeUp();
    if (this.pumping || this.stopped) return;
    this.pumping = this.pump().finally(() => (this.pumping = undefined));
  }

  private async pump(): Promise<void> {
    while (!this.stopped && (this.inFlight || this.spool.pending > 0)) {
      this.inFlight ??= this.nextBatch();
      const { records, end } = this.inFlight;
      try {
        if (!this.opened) {
          await this.sink.open?.();
          this.opened = true;
        }
        if (records.length > 0) await this.sink.append(records);
        if (this.closed) return;
        this.spool.advance(end, records.length);
        if (this.spool.span.size === 0) this.recent = []; // emptied: every offset starts again
        this.inFlight = undefined;
        this.delivered += records.length;
        if (this.failing) {
          this.logger.log(`Delivers again; ${this.spool.pending} record(s) still waiting`);
          this.failing = false;
          this.lastError = undefined;
        }
        this.delay = this.settings.retryDelayMs;
      } catch (error) {
        if (this.closed) return;
        this.failures++;
        this.fail((error as Error)?.message ?? String(error));
        await this.sleep(this.delay * (0.5 + Math.random() / 2));
        this.delay = Math.min(this.delay * 2, this.settings.maxRetryDelayMs);
      }
    }
  }

  /** The oldest records of the spool, with the lines they were stored as (a sink sends those, not a re-serialization). */
  private nextBatch(): { records: AuditRecord[]; end: number } {
    const { offset } = this.spool.span;
    while (this.recent.length > 0 && this.recent[0].start < offset) this.recent.shift();
    const kept = this.recent[0];
    if (kept && kept.start === offset && kept.records.length <= this.settings.batchSize) {
      this.recent.shift();
      return { records: kept.records as AuditRecord[], end: kept.end };
    }
    // Behind (the sink was down long, or a previous run spooled these): from the file.
    this.recent = [];
    const { records, end, bytes } = this.spool.next(this.settings.batchSize);
    rememberBatchBytes(records, bytes);
    return { records, end };
  }

  private fail(message: string): void {
    if (!this.failing)
      this.logger.error(`Cannot deliver audit records (${message}); they wait in ${this.spool.file} and are retried`);
    this.failing = true;
    this.lastError = message;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.sleeper = setTimeout(resolve, ms);
      this.sleeper.unref?.();
    });
  }

  private wakeUp(): void {
    clearTimeout(this.sleeper);
    this.wake?.();
    this.wake = undefined;
  }
}
