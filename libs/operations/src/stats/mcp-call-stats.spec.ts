import type { AuditOutcome } from '#libs/security';
import type { McpEntryKind, McpRequestEvent } from '#libs/protocol';
import { binValue, LATENCY_BINS, latencyBin, quantile } from './latency-histogram';
import { McpCallStats, OTHER_ENTRY } from './mcp-call-stats';

const MINUTE = 60_000;

function event(
  target: string | undefined,
  latencyMs: number,
  outcome: AuditOutcome = 'ok',
  kind: McpEntryKind | undefined = 'tool',
  method?: string,
): McpRequestEvent {
  return {
    method:
      method ??
      (kind === 'tool'
        ? 'tools/call'
        : kind === 'prompt'
          ? 'prompts/get'
          : kind === 'resource'
            ? 'resources/read'
            : 'tools/list'),
    entryKind: target === undefined ? undefined : kind,
    target,
    outcome,
    errorCode: undefined,
    latencyMs,
    transport: 'http',
    principal: 'p',
    sessionId: undefined,
    audited: false,
    startedAt: 0,
  };
}

describe('latency histogram', () => {
  it('puts latencies in log-scale bins whose middle is within 9 % of every value they hold', () => {
    for (const ms of [0.02, 0.5, 1, 3.3, 17, 250, 999, 12_345, 120_000]) {
      const bin = latencyBin(ms);
      expect(Math.abs(binValue(bin) - ms) / ms).toBeLessThan(0.091);
    }
    expect(latencyBin(0)).toBe(0);
    expect(latencyBin(-5)).toBe(0);
    expect(latencyBin(Number.NaN)).toBe(0);
    expect(latencyBin(10 * 60_000)).toBe(LATENCY_BINS - 1);
  });

  it('reads nearest-rank quantiles, clamped to the observed range', () => {
    const bins = new Uint32Array(LATENCY_BINS);
    for (let ms = 1; ms <= 100; ms++) bins[latencyBin(ms)]++;
    expect(quantile(bins, 100, 0.5, 1, 100)).toBeCloseTo(50, -1);
    expect(Math.abs(quantile(bins, 100, 0.5, 1, 100)! - 50) / 50).toBeLessThan(0.1);
    expect(Math.abs(quantile(bins, 100, 0.95, 1, 100)! - 95) / 95).toBeLessThan(0.1);
    expect(quantile(bins, 100, 1, 1, 100)).toBe(100);
    expect(quantile(bins, 0, 0.5, Infinity, 0)).toBeUndefined();
    // With few values, the top ranks are the exact maximum (not its bin's middle).
    const two = new Uint32Array(LATENCY_BINS);
    two[latencyBin(1.4)]++;
    two[latencyBin(4.179)]++;
    expect(quantile(two, 2, 0.95, 1.4, 4.179)).toBe(4.179);
    expect(quantile(two, 2, 0.5, 1.4, 4.179)).toBe(1.4);
  });
});

describe('McpCallStats', () => {
  let now: number;
  const stats = (options: Partial<ConstructorParameters<typeof McpCallStats>[0]> = {}) =>
    new McpCallStats({ windowMs: 5 * MINUTE, now: () => now, ...options });

  beforeEach(() => (now = Date.UTC(2026, 0, 1, 12, 0, 0)));

  it('counts calls, errors by outcome and latency percentiles per entry', () => {
    const s = stats();
    for (let i = 1; i <= 100; i++) s.observe(event('search', i));
    s.observe(event('search', 5, 'tool_error'));
    s.observe(event('search', 5, 'denied'));
    s.observe(event('create', 2, 'invalid'));
    s.observe(event(undefined, 1, 'ok', undefined)); // tools/list: only in the request totals
    const snapshot = s.snapshot();
    expect(snapshot).toMatchObject({ windowMs: 300_000, bucketMs: 10_000, at: '2026-01-01T12:00:00.000Z' });
    expect(snapshot.requests).toMatchObject({ calls: 104, errors: 3, total: { calls: 104, errors: 3 } });
    const [search, create] = snapshot.entries;
    expect(search).toMatchObject({
      kind: 'tool',
      name: 'search',
      calls: 102,
      errors: 2,
      errorRate: 0.0196,
      outcomes: { ok: 100, tool_error: 1, denied: 1 },
      total: { calls: 102, errors: 2 },
      lastCallAt: '2026-01-01T12:00:00.000Z',
    });
    expect(search.latencyMs!.max).toBe(100);
    expect(Math.abs(search.latencyMs!.p50 - 50) / 50).toBeLessThan(0.1);
    expect(Math.abs(search.latencyMs!.p95 - 95) / 95).toBeLessThan(0.1);
    expect(Math.abs(search.latencyMs!.p99 - 99) / 99).toBeLessThan(0.1);
    expect(search.latencyMs!.mean).toBeCloseTo((5050 + 10) / 102, 3);
    expect(create).toMatchObject({
      name: 'create',
      calls: 1,
      errors: 1,
      errorRate: 1,
      latencyMs: { p50: 2, p95: 2, p99: 2, max: 2, mean: 2 },
    });
  });

  it('counts calls only: not subscriptions, and a task once (its background run is no request)', () => {
    const s = stats();
    s.observe(event('report', 3, 'ok', 'tool'));
    s.observe(event('report', 900, 'tool_error', 'tool', 'tasks/run'));
    s.observe(event('kb://a', 1, 'ok', 'resource', 'resources/subscribe'));
    const snapshot = s.snapshot();
    expect(snapshot.entries.map(({ name, calls }) => ({ name, calls }))).toEqual([{ name: 'report', calls: 1 }]);
    expect(snapshot.requests.calls).toBe(2);
  });

  it('forgets calls older than the window, bucket by bucket, and keeps totals', () => {
    const s = stats();
    s.observe(event('a', 10, 'error'));
    now += 2 * MINUTE;
    s.observe(event('a', 20));
    expect(s.snapshot().entries[0]).toMatchObject({ calls: 2, errors: 1, latencyMs: { max: 20 } });
    now += 3 * MINUTE + 10_000; // the first call is now more than a window (+ one bucket) old
    expect(s.snapshot().entries[0]).toMatchObject({
      calls: 1,
      errors: 0,
      errorRate: 0,
      outcomes: { ok: 1 },
      total: { calls: 2, errors: 1 },
    });
    now += 5 * MINUTE + 10_000;
    const idle = s.snapshot().entries[0];
    expect(idle).toMatchObject({ calls: 0, errors: 0, latencyMs: null, outcomes: {}, total: { calls: 2, errors: 1 } });
    // A slot reused after a full turn of the ring starts from zero.
    s.observe(event('a', 7));
    expect(s.snapshot().entries[0]).toMatchObject({ calls: 1, latencyMs: { p50: 7, max: 7 } });
  });

  it('keeps its memory bounded: one series per entry, unknown targets not counted, overflow as (other)', () => {
    const known = new Set(['t1', 't2', 't3']);
    const s = stats({
      maxEntries: 2,
      entryOf: (kind, target) =>
        kind === 'resource'
          ? target.startsWith('kb://articles/')
            ? 'kb://articles/{slug}'
            : undefined
          : known.has(target)
            ? target
            : undefined,
    });
    s.observe(event('t1', 1));
    s.observe(event('nope', 1, 'not_found'));
    s.observe(event('kb://articles/a', 1, 'ok', 'resource'));
    s.observe(event('kb://articles/b', 3, 'ok', 'resource'));
    s.observe(event('t2', 1));
    s.observe(event('t3', 1));
    const entries = s.snapshot().entries.map(({ kind, name, calls }) => ({ kind, name, calls }));
    expect(entries).toEqual([
      { kind: 'tool', name: 't1', calls: 1 },
      { kind: 'resource', name: 'kb://articles/{slug}', calls: 2 },
      { kind: 'tool', name: OTHER_ENTRY, calls: 2 },
    ]);
    expect(s.snapshot().requests.calls).toBe(6);
  });

  it('observes without allocating per call once an entry is known', () => {
    const s = stats();
    s.observe(event('hot', 1));
    const e = event('hot', 1.5);
    // Warm up, then compare heap growth of 200 000 calls against a generous bound.
    for (let i = 0; i < 10_000; i++) s.observe(e);
    global.gc?.();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 200_000; i++) s.observe(e);
    const grown = process.memoryUsage().heapUsed - before;
    expect(grown).toBeLessThan(4 * 1024 * 1024);
    expect(s.snapshot().entries[0].calls).toBe(210_001);
  });
});
