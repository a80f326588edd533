/**
 * Call deadlines checked by one timer for all calls, instead of a timer per call (which costs
 * more than the rest of a small tool call). Deadlines fire within `RESOLUTION_MS` of their time.
 */
const RESOLUTION_MS = 50;

interface Deadline {
  at: number;
  fire: () => void;
}

export class Deadlines {
  private readonly pending = new Set<Deadline>();
  private timer: NodeJS.Timeout | undefined;

  /** Calls `fire` after `ms` unless the returned function is called first. */
  add(ms: number, fire: () => void): () => void {
    const deadline: Deadline = { at: Date.now() + ms, fire };
    this.pending.add(deadline);
    this.timer ??= setInterval(() => this.sweep(), Math.min(RESOLUTION_MS, ms)).unref();
    return () => this.pending.delete(deadline);
  }

  private sweep(): void {
    const now = Date.now();
    for (const deadline of this.pending) {
      if (deadline.at <= now) {
        this.pending.delete(deadline);
        deadline.fire();
      }
    }
    if (this.pending.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
