/**
 * The latencies of the last `size` requests, in a ring: the median the dashboard and readiness
 * show costs a sort of at most `size` numbers, when asked, and nothing per request.
 */
export class LatencyWindow {
  private readonly samples: Float64Array;
  private count = 0;
  private next = 0;

  constructor(size: number) {
    this.samples = new Float64Array(size);
  }

  add(ms: number): void {
    this.samples[this.next] = ms;
    this.next = (this.next + 1) % this.samples.length;
    this.count = Math.min(this.count + 1, this.samples.length);
  }

  /** The median of the window, rounded to 0.1 ms; `undefined` before the first sample. */
  median(): number | undefined {
    if (this.count === 0) return undefined;
    const sorted = Array.from(this.samples.subarray(0, this.count)).sort((a, b) => a - b);
    const middle = sorted.length >> 1;
    const value = sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    return Math.round(value * 10) / 10;
  }
}
