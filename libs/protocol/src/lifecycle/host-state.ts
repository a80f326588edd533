import { Injectable } from '@nestjs/common';
import type { CallCancellation } from '#libs/invocation';

export type HostPhase = 'starting' | 'ready' | 'draining' | 'stopped';

/** What a drain found and did, for the shutdown log and its tests. */
export interface DrainReport {
  /** Requests and task runs in flight when the drain began. */
  inFlight: number;
  /** Calls still running when the time was up, cancelled with an answer that says so. */
  cancelled: number;
  /** Work that had not ended (answered and recorded) even after its cancellation. */
  unfinished: number;
}

/**
 * How long cancelled calls get to be answered and recorded: a tool call is answered at once
 * (`ToolInvoker`), the rest stop when their handlers honour the signal.
 */
const CANCELLED_GRACE_MS = 2_000;

/**
 * The host's phase, its work in flight and the calls running: readiness reads the phase,
 * transports refuse new requests while draining, and shutdown waits for the work, then cancels
 * the calls still running and waits for their answers.
 *
 * Work is what the host must finish before it lets go: a request from the moment a transport
 * takes it until its answer is delivered (JSON body, SSE event, stdio line, the in-process
 * caller) and its audit record taken; a task's run until its outcome is stored and recorded.
 * Transports and task runners `enter` and `leave` (counters, nothing allocated per request).
 */
@Injectable()
export class HostState {
  phase: HostPhase = 'starting';
  private readonly calls = new Set<CallCancellation>();
  private work = 0;
  private idle: (() => void) | undefined;

  get accepting(): boolean {
    return this.phase === 'ready';
  }

  /** Calls running (tools, prompts, resources, tasks). */
  get inFlight(): number {
    return this.calls.size;
  }

  /** Requests being answered and task runs not yet recorded. */
  get pendingWork(): number {
    return this.work;
  }

  begin(call: CallCancellation): void {
    this.calls.add(call);
  }

  end(call: CallCancellation): void {
    this.calls.delete(call);
    if (this.calls.size === 0 && this.work === 0) this.idle?.();
  }

  /** A request or a task run begins: the host does not let go before it `leave`s. */
  enter(): void {
    this.work++;
  }

  /** The work `enter`ed ended: answered (or withdrawn) and recorded. */
  leave(): void {
    if (--this.work === 0 && this.calls.size === 0) this.idle?.();
  }

  /**
   * Stops taking requests (`draining`) and waits up to `timeoutMs` for the work in flight; then
   * cancels the calls still running (each answered "cancelled: the host is shutting down") and
   * waits a little more for those answers to be delivered and recorded.
   */
  async drain(timeoutMs: number): Promise<DrainReport> {
    this.phase = 'draining';
    const inFlight = this.work;
    await this.quiet(timeoutMs);
    const cancelled = this.calls.size;
    for (const call of [...this.calls]) call.cancelForShutdown();
    if (!this.done) await this.quiet(Math.min(CANCELLED_GRACE_MS, Math.max(timeoutMs, 1)));
    return { inFlight, cancelled, unfinished: this.work };
  }

  private get done(): boolean {
    return this.work === 0 && this.calls.size === 0;
  }

  /** Resolves once no work is in flight and no call runs, or after `timeoutMs`. */
  private async quiet(timeoutMs: number): Promise<void> {
    if (this.done) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => (this.idle = resolve)),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
    ]);
    clearTimeout(timer);
    this.idle = undefined;
  }
}
