/**
 * A fixed log-scale latency histogram: bin `i` holds latencies from `MIN_MS × 2^(i/STEPS)` up to
 * the next bin, four bins per doubling, from 10 µs to about 168 s (the last bin takes anything
 * longer). Every bucket of every entry uses the same bins, so histograms merge by adding counts,
 * and a percentile read from them is within ±9 % of the true value (clamped to the observed
 * minimum and maximum, which makes small samples exact at the ends).
 */
export const LATENCY_BINS = 96;
const MIN_MS = 0.01;
const STEPS_PER_DOUBLING = 4;

/** The bin of a latency (ms); O(1), no allocation. */
export function latencyBin(ms: number): number {
  if (!(ms > MIN_MS)) return 0;
  const bin = Math.floor(Math.log2(ms / MIN_MS) * STEPS_PER_DOUBLING);
  return bin < LATENCY_BINS ? bin : LATENCY_BINS - 1;
}

/** The value that stands for a bin: the geometric middle of its bounds (ms). */
export function binValue(bin: number): number {
  return MIN_MS * 2 ** ((bin + 0.5) / STEPS_PER_DOUBLING);
}

/**
 * The `q` quantile (0 < q ≤ 1) of `count` latencies counted in `bins`, clamped to `[min, max]`;
 * `undefined` when there are none. Nearest-rank: the smallest bin holding at least `q × count`
 * of the values, or the exact maximum when that rank is the last.
 */
export function quantile(
  bins: ArrayLike<number>,
  count: number,
  q: number,
  min: number,
  max: number,
): number | undefined {
  if (count === 0) return undefined;
  const rank = Math.max(1, Math.ceil(q * count));
  // The highest value is known exactly (small samples: p95 of 10 calls is their maximum).
  if (rank >= count) return max;
  let seen = 0;
  for (let bin = 0; bin < LATENCY_BINS; bin++) {
    seen += bins[bin];
    if (seen >= rank) return Math.min(max, Math.max(min, binValue(bin)));
  }
  return max;
}
