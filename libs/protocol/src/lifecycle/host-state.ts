import { Injectable } from '@nestjs/common';
import type { CallCancellation } from '#libs/invocation';

export type HostPhase = 'starting' | 'ready' | 'draining' | 'stopped';

/**
 * The host's phase and the calls in flight: readiness reads the phase, transports refuse new
 * work while draining, and shutdown waits for (then aborts) what is still running.
 */
@Injectable()
export class HostState {
  phase: HostPhase = 'starting';
  private readonly calls = new Set<CallCancellation>();
  private idle: (() => void) | undefined;

  get accepting(): boolean {
    return this.phase === 'ready';
  }

  get inFlight(): number {
    return this.calls.size;
  }

  begin(call: CallCancellation): void {
    this.calls.add(call);
  }

  end(call: CallCancellation): void {
    this.calls.delete(call);
    if (this.calls.size === 0) this.idle?.();
  }

  /** Waits up to `timeoutMs` for the calls in flight, then aborts the rest. Returns how many were aborted. */
  async drain(timeoutMs: number): Promise<number> {
    this.phase = 'draining';
    if (this.calls.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => (this.idle = resolve)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
      ]);
      clearTimeout(timer);
    }
    const aborted = this.calls.size;
    for (const call of this.calls) call.cancel(new Error('host shutting down'));
    this.calls.clear();
    return aborted;
  }
}
