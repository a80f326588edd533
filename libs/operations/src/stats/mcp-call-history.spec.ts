import type { McpRequestEvent } from '#libs/protocol';
import { McpCallHistory } from './mcp-call-history';

const call = (target: string, outcome: string, latencyMs: number) =>
  ({ method: 'tools/call', entryKind: 'tool', target, outcome, latencyMs }) as unknown as McpRequestEvent;

describe('McpCallHistory', () => {
  it('keeps the last hour minute by minute: calls, failures, p50 and p95, in total and per tool (busiest first)', () => {
    let now = Date.UTC(2026, 10, 28, 10, 0, 30);
    const history = new McpCallHistory(
      (name) => name !== 'made_up',
      () => now,
    );
    for (let i = 1; i <= 20; i++) history.observe(call('search', 'ok', i));
    history.observe(call('get', 'tool_error', 4));
    now += 2 * 60_000; // two minutes later
    history.observe(call('get', 'ok', 8));
    history.observe(call('made_up', 'invalid', 1));
    history.observe({ ...call('search', 'ok', 1), method: 'tools/list', entryKind: undefined } as McpRequestEvent);
    const snapshot = history.snapshot();
    expect(snapshot.minutes).toHaveLength(60);
    expect(snapshot.minutes[59]).toBe(Date.UTC(2026, 10, 28, 10, 2));
    expect(snapshot.total.calls.slice(-3)).toEqual([21, 0, 2]);
    expect(snapshot.total.errors.slice(-3)).toEqual([1, 0, 1]);
    expect(snapshot.tools.map((tool) => tool.name)).toEqual(['search', 'get']);
    const [search, get] = snapshot.tools;
    expect(search.p50.slice(-3)).toEqual([expect.closeTo(10, -0.5), null, null]);
    expect(search.p95[57]).toBeCloseTo(19, -0.5); // within the histogram's ±9 %
    expect(get.calls.slice(-3)).toEqual([1, 0, 1]);
    // An hour later the old minutes are gone.
    now += 60 * 60_000;
    expect(history.snapshot().total.calls.every((count) => count === 0)).toBe(true);
  });
});
