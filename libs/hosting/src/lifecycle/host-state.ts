import { Injectable } from '@nestjs/common';

export type HostPhase = 'starting' | 'ready' | 'draining' | 'stopped';

/**
 * The host's phase and the calls in flight: readiness reads the phase, transports refuse new
 * work while draining, and shutdown waits for (then aborts) what is still running.
 */
@Injectable()
export class HostState {
  phase: HostPhase = 'starting';
  private readonly calls = new Set<AbortController>();
  private idle: (() => void) | undefined;

  get accepting(): boolean {
    return this.phase === 'ready';
  }

  get inFlight(): number {
    return this.calls.size;
  }

  begin(controller: AbortController): void {
    this.calls.add(controller);
  }

  end(controller: AbortController): void {
    this.calls.delete(controller);
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
    for (const controller of this.calls) controller.abort(new Error('host shutting down'));
    this.calls.clear();
    return aborted;
  }
}
