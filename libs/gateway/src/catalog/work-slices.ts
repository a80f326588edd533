import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Long work cut into slices of about `sliceMs`, the event loop served between them (requests,
 * health probes, other upstreams): what a large upstream list costs to take in is spread out
 * instead of holding the process for seconds.
 *
 * @example
 * ```ts
 * const slices = new WorkSlices();
 * for (const tool of tools) {
 *   add(tool);
 *   await slices.pause(); // at once within a slice, else on the loop's next turn
 * }
 * ```
 */
export class WorkSlices {
  private started = performance.now();

  constructor(private readonly sliceMs = 10) {}

  /** Resolves at once while the slice lasts; once it is over, after the event loop's next turn. */
  async pause(): Promise<void> {
    if (performance.now() - this.started < this.sliceMs) return;
    await nextTurn();
    this.started = performance.now();
  }
}
