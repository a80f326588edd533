import type { McpRequestEvent, McpRequestObserver } from '#libs/protocol';
import { LATENCY_BINS, latencyBin, quantile } from './latency-histogram';

/** Minutes of history kept (the dashboard's charts: the last hour). */
const MINUTES = 60;
const SLOTS = MINUTES + 1;
/** Tools that get series of their own; later ones count in the total only. */
const MAX_TOOLS = 100;

/** One minute of calls: how many, how many failed, and their latencies. */
class Minutes {
  readonly calls = new Uint32Array(SLOTS);
  readonly errors = new Uint32Array(SLOTS);
  readonly histograms = new Uint32Array(SLOTS * LATENCY_BINS);
  readonly min = new Float64Array(SLOTS).fill(Infinity);
  readonly max = new Float64Array(SLOTS);
  readonly epochs = new Float64Array(SLOTS).fill(-1);

  add(epoch: number, ok: boolean, ms: number): void {
    const slot = epoch % SLOTS;
    if (this.epochs[slot] !== epoch) {
      this.epochs[slot] = epoch;
      this.calls[slot] = 0;
      this.errors[slot] = 0;
      this.histograms.fill(0, slot * LATENCY_BINS, (slot + 1) * LATENCY_BINS);
      this.min[slot] = Infinity;
      this.max[slot] = 0;
    }
    this.calls[slot]++;
    if (!ok) this.errors[slot]++;
    this.histograms[slot * LATENCY_BINS + latencyBin(ms)]++;
    if (ms < this.min[slot]) this.min[slot] = ms;
    if (ms > this.max[slot]) this.max[slot] = ms;
  }

  /** The minutes from `first` to `first + MINUTES - 1`, oldest first (0 and null where none). */
  series(first: number): McpHistorySeries {
    const out: McpHistorySeries = { calls: [], errors: [], p50: [], p95: [] };
    for (let epoch = first; epoch < first + MINUTES; epoch++) {
      const slot = epoch % SLOTS;
      const here = this.epochs[slot] === epoch;
      const calls = here ? this.calls[slot] : 0;
      out.calls.push(calls);
      out.errors.push(here ? this.errors[slot] : 0);
      const bins = this.histograms.subarray(slot * LATENCY_BINS, (slot + 1) * LATENCY_BINS);
      const at = (q: number) =>
        calls === 0 ? null : round(quantile(bins, calls, q, this.min[slot], this.max[slot]) ?? 0);
      out.p50.push(at(0.5));
      out.p95.push(at(0.95));
    }
    return out;
  }
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;

/** Per minute, oldest first: calls, failed calls, and latency percentiles (ms; `null` in a minute without calls). */
export interface McpHistorySeries {
  calls: number[];
  errors: number[];
  p50: (number | null)[];
  p95: (number | null)[];
}

/** What `McpCallHistory.snapshot()` returns (and `GET /admin/api/history` answers). */
export interface McpHistorySnapshot {
  /** The start of each minute (ms since the epoch), oldest first: the last hour. */
  minutes: number[];
  /** Every tool call. */
  total: McpHistorySeries;
  /** Per tool, busiest first. */
  tools: (McpHistorySeries & { name: string })[];
}

/**
 * The last hour of tool calls, minute by minute, for the dashboard's charts: calls, failures
 * (every outcome but `ok`), p50 and p95, in total and per tool. Sixty one-minute slots per series
 * (a ring), a fixed latency histogram per slot: `observe()` allocates nothing after a tool's
 * first call; the percentiles are read only when the dashboard asks.
 */
export class McpCallHistory implements McpRequestObserver {
  private readonly total = new Minutes();
  private readonly tools = new Map<string, Minutes>();

  /**
   * @param isTool whether a name is a tool of the catalog (a call of a made-up name counts in the
   *   total only, so that callers cannot fill the series with names of their own)
   */
  constructor(
    private readonly isTool: (name: string) => boolean = () => true,
    private readonly now: () => number = Date.now,
  ) {}

  observe(event: McpRequestEvent): void {
    if (event.entryKind !== 'tool' || event.method !== 'tools/call') return;
    const epoch = Math.floor(this.now() / 60_000);
    const ok = event.outcome === 'ok';
    this.total.add(epoch, ok, event.latencyMs);
    const name = event.target;
    if (name === undefined) return;
    let tool = this.tools.get(name);
    if (!tool) {
      if (this.tools.size >= MAX_TOOLS || !this.isTool(name)) return;
      this.tools.set(name, (tool = new Minutes()));
    }
    tool.add(epoch, ok, event.latencyMs);
  }

  snapshot(): McpHistorySnapshot {
    const first = Math.floor(this.now() / 60_000) - MINUTES + 1;
    const tools = [...this.tools].map(([name, minutes]) => ({ name, ...minutes.series(first) }));
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    return {
      minutes: Array.from({ length: MINUTES }, (_, index) => (first + index) * 60_000),
      total: this.total.series(first),
      tools: tools.filter((tool) => sum(tool.calls) > 0).sort((a, b) => sum(b.calls) - sum(a.calls)),
    };
  }
}
