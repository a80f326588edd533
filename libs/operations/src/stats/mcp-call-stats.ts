import type { AuditOutcome } from '#libs/security';
import { traitsOf, type McpEntryKind, type McpRequestEvent, type McpRequestObserver } from '#libs/protocol';
import { LATENCY_BINS, latencyBin, quantile } from './latency-histogram';
import { OUTCOME_INDEX, OUTCOMES } from './outcome-index';

const OUTCOME_COUNT = OUTCOMES.length;
/** A window is this many buckets; one more slot holds the bucket being filled. */
const WINDOW_BUCKETS = 30;
const SLOTS = WINDOW_BUCKETS + 1;
/** Names of template-matched resource URIs remembered per entry (beyond it they are looked up again). */
const MAX_ALIASES = 10_000;
/** Where entries go once `maxEntries` are tracked. */
export const OTHER_ENTRY = '(other)';

/** Options of `McpCallStats`: its window, how many entries it tracks, how targets map to entries. */
export interface McpCallStatsOptions {
  /** The sliding window (ms); kept in 30 buckets of `windowMs / 30` each. */
  windowMs: number;
  /** At most this many entries get their own statistics; later ones are counted as `(other)`. @default 500 */
  maxEntries?: number;
  /**
   * The entry a request's target counts for, asked once per new target: e.g. the URI template a
   * resource URI matched, or `undefined` for a target the catalog does not have (not counted per
   * entry, so that callers cannot grow the statistics with made-up names). @default the target
   */
  entryOf?: (kind: McpEntryKind, target: string) => string | undefined;
  /** @default Date.now */
  now?: () => number;
}

/** Latency percentiles over the window (ms); `null` without calls. */
export interface McpLatencySummary {
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  max: number;
}

/** Calls over the window, by outcome, with their latency. */
export interface McpWindowStats {
  calls: number;
  /** Calls whose outcome was not `ok`. */
  errors: number;
  /** `errors / calls` (0 without calls). */
  errorRate: number;
  /** Non-zero counts by outcome. */
  outcomes: Partial<Record<AuditOutcome, number>>;
  latencyMs: McpLatencySummary | null;
}

/** One catalog entry's calls over the window, and since the host started. */
export interface McpEntryStats extends McpWindowStats {
  kind: McpEntryKind;
  /** Tool or prompt name, resource URI, or URI template. */
  name: string;
  /** Since the host started. */
  total: { calls: number; errors: number };
  /** ISO time of the latest call, `null` if none. */
  lastCallAt: string | null;
}

/** What `McpCallStats.snapshot()` returns (and `GET /admin/api/stats` answers). */
export interface McpStatsSnapshot {
  windowMs: number;
  bucketMs: number;
  /** ISO time of the snapshot; the window starts `windowMs` earlier (to within one bucket). */
  at: string;
  /** Every request the host answered (lists, `initialize`, transport refusals, …). */
  requests: McpWindowStats & { total: { calls: number; errors: number } };
  /** Per catalog entry, in the order first seen. */
  entries: McpEntryStats[];
}

/** The buckets of one entry: outcome counts, a latency histogram, sum, min and max per bucket. */
class Series {
  readonly histograms = new Uint32Array(SLOTS * LATENCY_BINS);
  readonly outcomes = new Uint32Array(SLOTS * OUTCOME_COUNT);
  readonly epochs = new Float64Array(SLOTS).fill(-1);
  readonly sums = new Float64Array(SLOTS);
  readonly mins = new Float64Array(SLOTS);
  readonly maxes = new Float64Array(SLOTS);
  totalCalls = 0;
  totalErrors = 0;
  lastAt = 0;

  constructor(
    readonly kind: McpEntryKind | undefined,
    readonly name: string,
  ) {}

  add(epoch: number, outcome: number, ms: number, now: number): void {
    const slot = epoch % SLOTS;
    if (this.epochs[slot] !== epoch) {
      this.histograms.fill(0, slot * LATENCY_BINS, (slot + 1) * LATENCY_BINS);
      this.outcomes.fill(0, slot * OUTCOME_COUNT, (slot + 1) * OUTCOME_COUNT);
      this.epochs[slot] = epoch;
      this.sums[slot] = 0;
      this.mins[slot] = Infinity;
      this.maxes[slot] = 0;
    }
    this.histograms[slot * LATENCY_BINS + latencyBin(ms)]++;
    this.outcomes[slot * OUTCOME_COUNT + outcome]++;
    this.sums[slot] += ms;
    if (ms < this.mins[slot]) this.mins[slot] = ms;
    if (ms > this.maxes[slot]) this.maxes[slot] = ms;
    this.totalCalls++;
    if (outcome !== 0) this.totalErrors++;
    this.lastAt = now;
  }
}

/**
 * Live per-entry statistics for the admin dashboard: calls, outcomes and latency percentiles of
 * every tool, prompt and resource over a sliding window (`tools/call`, `prompts/get`,
 * `resources/read`; a call run as a task counts once, until the task is created). Each entry keeps 31 buckets, each with a
 * fixed log-scale latency histogram, so memory is bounded (about 12 KB per entry) whatever the
 * traffic, `observe` is O(1) with no allocation once an entry is known, and percentiles come from
 * the merged histograms of the buckets inside the window.
 *
 * @example
 * ```ts
 * const stats = new McpCallStats({ windowMs: 5 * 60_000 });
 * observers.add(stats);
 * stats.snapshot().entries; // [{ kind: 'tool', name: 'search_tickets', calls: 12, errors: 1, latencyMs: { p50: 1.2, … } }]
 * ```
 */
export class McpCallStats implements McpRequestObserver {
  readonly windowMs: number;
  readonly bucketMs: number;
  private readonly maxEntries: number;
  private readonly entryOf: ((kind: McpEntryKind, target: string) => string | undefined) | undefined;
  private readonly now: () => number;
  private readonly requests = new Series(undefined, '*');
  /** Series by target, per kind; template-matched URIs also point to their template's series. */
  private readonly byKind: Record<McpEntryKind, Map<string, Series>> = {
    tool: new Map(),
    prompt: new Map(),
    resource: new Map(),
  };
  private readonly others: Partial<Record<McpEntryKind, Series>> = {};
  private readonly series: Series[] = [];
  private aliases = 0;
  // Scratch space of snapshots (not the hot path, but no need to allocate per entry either).
  private readonly mergedBins = new Uint32Array(LATENCY_BINS);
  private readonly mergedOutcomes = new Uint32Array(OUTCOME_COUNT);

  constructor(options: McpCallStatsOptions) {
    this.windowMs = options.windowMs;
    this.bucketMs = options.windowMs / WINDOW_BUCKETS;
    this.maxEntries = options.maxEntries ?? 500;
    this.entryOf = options.entryOf;
    this.now = options.now ?? Date.now;
  }

  observe(event: McpRequestEvent): void {
    const now = this.now();
    const epoch = Math.floor(now / this.bucketMs);
    const index = OUTCOME_INDEX[event.outcome];
    const outcome = typeof index === 'number' ? index : OUTCOME_INDEX.error;
    const ms = event.latencyMs > 0 ? event.latencyMs : 0;
    const method = event.method;
    // A task's background run is not a request (its tools/call was counted when it created the task).
    if (method === 'tasks/run') return;
    this.requests.add(epoch, outcome, ms, now);
    const kind = event.entryKind;
    // Per entry, calls only: not subscriptions (which name a resource too).
    if (kind === undefined || event.target === undefined || !traitsOf(method)?.runs) return;
    const map = this.byKind[kind];
    if (!map) return;
    (map.get(event.target) ?? this.firstSight(kind, map, event.target))?.add(epoch, outcome, ms, now);
  }

  /** The statistics of the window ending now. */
  snapshot(): McpStatsSnapshot {
    const now = this.now();
    const epoch = Math.floor(now / this.bucketMs);
    const requests = this.summarize(this.requests, epoch);
    return {
      windowMs: this.windowMs,
      bucketMs: this.bucketMs,
      at: new Date(now).toISOString(),
      requests: { ...requests, total: { calls: this.requests.totalCalls, errors: this.requests.totalErrors } },
      entries: this.series.map((series) => ({
        kind: series.kind!,
        name: series.name,
        ...this.summarize(series, epoch),
        total: { calls: series.totalCalls, errors: series.totalErrors },
        lastCallAt: series.lastAt ? new Date(series.lastAt).toISOString() : null,
      })),
    };
  }

  private firstSight(kind: McpEntryKind, map: Map<string, Series>, target: string): Series | undefined {
    const key = this.entryOf ? this.entryOf(kind, target) : target;
    if (key === undefined) return undefined;
    let series = map.get(key);
    if (!series) {
      if (this.series.length < this.maxEntries) {
        series = new Series(kind, key);
        map.set(key, series);
        this.series.push(series);
      } else {
        series = this.others[kind];
        if (!series) {
          series = this.others[kind] = new Series(kind, OTHER_ENTRY);
          this.series.push(series);
        }
        return series;
      }
    }
    if (key !== target && this.aliases < MAX_ALIASES) {
      map.set(target, series);
      this.aliases++;
    }
    return series;
  }

  private summarize(series: Series, epoch: number): McpWindowStats {
    const bins = this.mergedBins.fill(0);
    const outcomes = this.mergedOutcomes.fill(0);
    let sum = 0;
    let min = Infinity;
    let max = 0;
    for (let slot = 0; slot < SLOTS; slot++) {
      const at = series.epochs[slot];
      if (at < epoch - WINDOW_BUCKETS || at > epoch) continue;
      for (let bin = 0; bin < LATENCY_BINS; bin++) bins[bin] += series.histograms[slot * LATENCY_BINS + bin];
      for (let outcome = 0; outcome < OUTCOME_COUNT; outcome++)
        outcomes[outcome] += series.outcomes[slot * OUTCOME_COUNT + outcome];
      sum += series.sums[slot];
      if (series.mins[slot] < min) min = series.mins[slot];
      if (series.maxes[slot] > max) max = series.maxes[slot];
    }
    let calls = 0;
    const byOutcome: Partial<Record<AuditOutcome, number>> = {};
    for (let outcome = 0; outcome < OUTCOME_COUNT; outcome++) {
      calls += outcomes[outcome];
      if (outcomes[outcome] > 0) byOutcome[OUTCOMES[outcome]] = outcomes[outcome];
    }
    const errors = calls - outcomes[0];
    const at = (q: number) => round(quantile(bins, calls, q, min, max)!);
    return {
      calls,
      errors,
      errorRate: calls > 0 ? Math.round((errors / calls) * 10_000) / 10_000 : 0,
      outcomes: byOutcome,
      latencyMs:
        calls > 0 ? { p50: at(0.5), p95: at(0.95), p99: at(0.99), mean: round(sum / calls), max: round(max) } : null,
    };
  }
}

/** Milliseconds to the microsecond. */
function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
