import { PerformanceObserver } from 'node:perf_hooks';
import { Counter, register as globalRegistry } from 'prom-client';
import type { AuditOutcome, AuditTrailHealth } from '#libs/security';
import type { McpEntryKind, McpRequestEvent } from '#libs/protocol';
import { McpMetrics } from './mcp-metrics';
import { McpRequestObservers } from '#libs/protocol';

function event(
  method: string | null,
  target: string | undefined,
  latencyMs: number,
  outcome: AuditOutcome = 'ok',
  kind?: McpEntryKind,
  transport: 'http' | 'stdio' = 'http',
): McpRequestEvent {
  return {
    method,
    entryKind:
      target === undefined
        ? undefined
        : (kind ?? (method === 'prompts/get' ? 'prompt' : method?.startsWith('resources/') ? 'resource' : 'tool')),
    target,
    outcome,
    errorCode: undefined,
    latencyMs,
    transport,
    principal: 'p',
    sessionId: undefined,
    audited: false,
    startedAt: 0,
  };
}

/** `name{labels} value` lines of the exposition, as `name{a="x",b="y"}` → value. */
async function scrape(metrics: McpMetrics): Promise<Map<string, number>> {
  const samples = new Map<string, number>();
  for (const line of (await metrics.metrics()).split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}

const CATALOG: Record<McpEntryKind, (target: string) => string | undefined> = {
  tool: (name) => (['add', 'search'].includes(name) ? name : undefined),
  prompt: (name) => (name === 'triage' ? name : undefined),
  resource: (uri) =>
    uri === 'kb://index' ? uri : uri.startsWith('kb://articles/') ? 'kb://articles/{slug}' : undefined,
};
const entryOf = (kind: McpEntryKind, target: string) => CATALOG[kind](target);

describe('McpMetrics', () => {
  it('counts requests exactly by method, kind, target and outcome, with names outside the catalog as "other"', async () => {
    const metrics = new McpMetrics({ entryOf, processMetrics: false });
    metrics.observe(event('tools/call', 'add', 2));
    metrics.observe(event('tools/call', 'add', 3));
    metrics.observe(event('tools/call', 'add', 4, 'tool_error'));
    metrics.observe(event('tools/call', 'made_up_1', 1, 'invalid'));
    metrics.observe(event('tools/call', 'made_up_2', 1, 'invalid'));
    metrics.observe(event('prompts/get', 'triage', 1));
    metrics.observe(event('resources/read', 'kb://articles/a', 1));
    metrics.observe(event('resources/read', 'kb://articles/b', 1, 'not_found'));
    metrics.observe(event('resources/read', 'kb://index', 1));
    metrics.observe(event('tools/list', undefined, 1));
    metrics.observe(event('no/such/method', undefined, 1, 'not_found'));
    metrics.observe(event('another/invention', undefined, 1, 'not_found'));
    metrics.observe(event(null, undefined, 0.1, 'unauthenticated'));

    const samples = await scrape(metrics);
    const requests = [...samples].filter(([key]) => key.startsWith('mcp_requests_total{'));
    expect(Object.fromEntries(requests)).toEqual({
      'mcp_requests_total{method="tools/call",kind="tool",target="add",outcome="ok"}': 2,
      'mcp_requests_total{method="tools/call",kind="tool",target="add",outcome="tool_error"}': 1,
      'mcp_requests_total{method="tools/call",kind="tool",target="other",outcome="invalid"}': 2,
      'mcp_requests_total{method="prompts/get",kind="prompt",target="triage",outcome="ok"}': 1,
      'mcp_requests_total{method="resources/read",kind="resource",target="kb://articles/{slug}",outcome="ok"}': 1,
      'mcp_requests_total{method="resources/read",kind="resource",target="kb://articles/{slug}",outcome="not_found"}': 1,
      'mcp_requests_total{method="resources/read",kind="resource",target="kb://index",outcome="ok"}': 1,
      'mcp_requests_total{method="tools/list",kind="",target="",outcome="ok"}': 1,
      'mcp_requests_total{method="other",kind="",target="",outcome="not_found"}': 2,
      'mcp_requests_total{method="",kind="",target="",outcome="unauthenticated"}': 1,
    });
    expect(samples.get('mcp_unauthenticated_total{transport="http"}')).toBe(1);
    expect(samples.get('mcp_unauthenticated_total{transport="stdio"}')).toBe(0);
    expect(samples.get('mcp_throttled_total{transport="http"}')).toBe(0);
  });

  it('keeps a cumulative duration histogram in seconds from 1 ms to 30 s', async () => {
    const metrics = new McpMetrics({ entryOf, processMetrics: false });
    for (const ms of [0.5, 1, 1.5, 7, 240, 45_000]) metrics.observe(event('tools/call', 'search', ms));
    const samples = await scrape(metrics);
    const bucket = (le: string) =>
      samples.get(`mcp_request_duration_seconds_bucket{method="tools/call",kind="tool",target="search",le="${le}"}`);
    // A value equal to a bound falls in that bucket (le: less than or equal).
    expect([
      bucket('0.001'),
      bucket('0.0025'),
      bucket('0.005'),
      bucket('0.01'),
      bucket('0.25'),
      bucket('30'),
      bucket('+Inf'),
    ]).toEqual([2, 3, 3, 4, 5, 5, 6]);
    expect(samples.get('mcp_request_duration_seconds_count{method="tools/call",kind="tool",target="search"}')).toBe(6);
    expect(
      samples.get('mcp_request_duration_seconds_sum{method="tools/call",kind="tool",target="search"}'),
    ).toBeCloseTo(45.25, 6);
    expect((await metrics.metrics()).includes('# TYPE mcp_request_duration_seconds histogram')).toBe(true);
  });

  it('counts throttled, denied and unauthenticated requests per transport', async () => {
    const metrics = new McpMetrics({ entryOf, processMetrics: false });
    metrics.observe(event('tools/call', 'add', 1, 'throttled'));
    metrics.observe(event('tools/call', 'add', 1, 'throttled', 'tool', 'stdio'));
    metrics.observe(event('tools/call', 'add', 1, 'denied', 'tool', 'stdio'));
    metrics.observe(event(null, undefined, 1, 'throttled'));
    const samples = await scrape(metrics);
    expect([
      samples.get('mcp_throttled_total{transport="http"}'),
      samples.get('mcp_throttled_total{transport="stdio"}'),
      samples.get('mcp_denied_total{transport="http"}'),
      samples.get('mcp_denied_total{transport="stdio"}'),
      samples.get('mcp_unauthenticated_total{transport="http"}'),
    ]).toEqual([2, 1, 0, 1, 0]);
  });

  it('counts what governance guardrails found (never the value) and the policies that refused', async () => {
    const metrics = new McpMetrics({ entryOf, processMetrics: false });
    const governed = (governance: McpRequestEvent['governance'], outcome: AuditOutcome = 'ok') => ({
      ...event('tools/call', 'add', 1, outcome),
      governance,
    });
    const email = { detector: 'email', in: 'result', path: '$.text', action: 'redact' } as const;
    metrics.observe(governed({ findings: [email, { ...email, path: '$.other' }] }));
    metrics.observe(governed({ findings: [email] }));
    metrics.observe(
      governed({ findings: [{ detector: 'private-key', in: 'arguments', path: '$.note', action: 'block' }] }, 'denied'),
    );
    metrics.observe(governed({ refused: [{ policy: 'urgent-needs-lead', reason: 'leads only' }] }, 'denied'));
    metrics.observe(governed({ refused: [{ policy: 'tenant', reason: 'own tenant', dryRun: true }], allowed: ['x'] }));
    metrics.observe(governed({ allowed: ['urgent-needs-lead'] }));
    const samples = await scrape(metrics);
    expect([...samples].filter(([name]) => /^mcp_(guardrail_findings|policy_refusals)_total/.test(name))).toEqual([
      ['mcp_guardrail_findings_total{detector="email",in="result",action="redact"}', 3],
      ['mcp_guardrail_findings_total{detector="private-key",in="arguments",action="block"}', 1],
      ['mcp_policy_refusals_total{policy="urgent-needs-lead",dry_run="false"}', 1],
      ['mcp_policy_refusals_total{policy="tenant",dry_run="true"}', 1],
    ]);
  });

  it('reads in-flight calls, sessions and the audit trail when scraped', async () => {
    let inFlight = 3;
    const health: AuditTrailHealth = {
      sink: 'jsonl',
      policy: 'buffered',
      state: 'failing',
      queued: 4,
      spooled: 120,
      spoolBytes: 90_000,
      written: 17,
      dropped: 2,
      failures: 1,
      forwards: [
        { sink: 'syslog', state: 'ok', spooled: 0, spoolBytes: 0, delivered: 17, failures: 0, dropped: 0 },
        { sink: 'webhook', state: 'failing', spooled: 9, spoolBytes: 4_000, delivered: 8, failures: 3, dropped: 0 },
      ],
    };
    const metrics = new McpMetrics({
      processMetrics: false,
      inFlight: () => inFlight,
      sessions: () => 5,
      audit: () => health,
    });
    let samples = await scrape(metrics);
    expect([
      samples.get('mcp_in_flight'),
      samples.get('mcp_sessions_active'),
      samples.get('mcp_audit_queue_depth'),
    ]).toEqual([3, 5, 4]);
    expect([samples.get('mcp_audit_spooled_records'), samples.get('mcp_audit_spooled_bytes')]).toEqual([120, 90_000]);
    expect([
      samples.get('mcp_audit_written_total'),
      samples.get('mcp_audit_dropped_total'),
      samples.get('mcp_audit_failures_total'),
    ]).toEqual([17, 2, 1]);
    expect([
      samples.get('mcp_audit_forward_up{sink="syslog"}'),
      samples.get('mcp_audit_forward_up{sink="webhook"}'),
      samples.get('mcp_audit_forward_spooled_records{sink="webhook"}'),
      samples.get('mcp_audit_forward_delivered_total{sink="syslog"}'),
      samples.get('mcp_audit_forward_failures_total{sink="webhook"}'),
    ]).toEqual([1, 0, 9, 17, 3]);
    inFlight = 0;
    health.written = 20;
    samples = await scrape(metrics);
    expect([samples.get('mcp_in_flight'), samples.get('mcp_audit_written_total')]).toEqual([0, 20]);

    const withoutAudit = await scrape(new McpMetrics({ processMetrics: false, inFlight: () => 0 }));
    expect([...withoutAudit.keys()].filter((key) => key.startsWith('mcp_audit'))).toEqual([]);
  });

  it("reads the approvals waiting and the gauges other parts add (the gateway's upstreams), when scraped", async () => {
    let pending = 2;
    const metrics = new McpMetrics({ processMetrics: false, approvalsPending: async () => pending });
    const upstreams = [{ name: 'wiki', up: 1 }];
    metrics.addGauge('mcp_upstream_up', 'Connected upstreams.', ['upstream'], () =>
      upstreams.map((upstream) => [{ upstream: upstream.name }, upstream.up]),
    );
    let samples = await scrape(metrics);
    expect([samples.get('mcp_approvals_pending'), samples.get('mcp_upstream_up{upstream="wiki"}')]).toEqual([2, 1]);
    pending = 0;
    upstreams.push({ name: 'crm', up: 0 });
    // Added after the registry was made: registered at once.
    metrics.addGauge('mcp_upstream_circuit_open', 'Open circuits.', ['upstream'], () => [[{ upstream: 'crm' }, 1]]);
    samples = await scrape(metrics);
    expect([
      samples.get('mcp_approvals_pending'),
      samples.get('mcp_upstream_up{upstream="crm"}'),
      samples.get('mcp_upstream_circuit_open{upstream="crm"}'),
    ]).toEqual([0, 0, 1]);
  });

  it('keeps the series bounded: beyond maxSeries, new catalog names count as "other"', async () => {
    const metrics = new McpMetrics({ entryOf: (_kind, name) => name, processMetrics: false, maxSeries: 3 });
    for (const name of ['a', 'b', 'c', 'd', 'e', 'a']) metrics.observe(event('tools/call', name, 1));
    const targets = [...(await scrape(metrics)).keys()]
      .filter((key) => key.startsWith('mcp_requests_total'))
      .map((key) => /target="([^"]*)"/.exec(key)![1]);
    expect(targets.sort()).toEqual(['a', 'b', 'c', 'other']);
  });

  it('registers with the observers and adds the process metrics on module init, never in the global registry', async () => {
    const observers = new McpRequestObservers();
    const metrics = new McpMetrics({ entryOf, observers });
    expect(observers.size).toBe(0);
    metrics.onModuleInit();
    metrics.onModuleInit();
    expect(observers.size).toBe(1);
    observers.observe(event('tools/call', 'add', 1));
    const text = await metrics.metrics();
    expect(text).toContain('mcp_requests_total{method="tools/call",kind="tool",target="add",outcome="ok"} 1');
    expect(text).toMatch(/^mcp_process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^mcp_nodejs_heap_size_used_bytes \d/m);
    // A second instance shares the process metrics (collected once per process).
    const other = new McpMetrics({ processMetrics: true });
    other.onModuleInit();
    expect(await other.metrics()).toMatch(/^mcp_process_resident_memory_bytes \d/m);
    expect(globalRegistry.getMetricsAsArray().filter((metric) => metric.name.startsWith('mcp_'))).toEqual([]);
    expect(metrics.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
  });

  it('labels every metric it exports with the replica, process metrics and metrics of your own too', async () => {
    const metrics = new McpMetrics({ entryOf, inFlight: () => 0, replica: 'desk-eu-1' });
    metrics.onModuleInit();
    const tickets = new Counter({
      name: 'desk_tickets_total',
      help: 'Tickets.',
      labelNames: ['status'],
      registers: [],
    });
    tickets.inc({ status: 'open' }, 2);
    metrics.registry.registerMetric(tickets);
    metrics.observe(event('tools/call', 'add', 2));
    const samples = await scrape(metrics);
    expect(
      samples.get('mcp_requests_total{method="tools/call",kind="tool",target="add",outcome="ok",replica="desk-eu-1"}'),
    ).toBe(1);
    expect(
      samples.get(
        'mcp_request_duration_seconds_bucket{method="tools/call",kind="tool",target="add",le="+Inf",replica="desk-eu-1"}',
      ),
    ).toBe(1);
    expect(samples.get('mcp_in_flight{replica="desk-eu-1"}')).toBe(0);
    expect(samples.get('mcp_throttled_total{transport="http",replica="desk-eu-1"}')).toBe(0);
    expect(samples.get('desk_tickets_total{status="open",replica="desk-eu-1"}')).toBe(2);
    expect(
      [...samples.keys()].some((key) => key.startsWith('mcp_process_cpu_user_seconds_total{replica="desk-eu-1"}')),
    ).toBe(true);
    expect([...samples.keys()].filter((key) => !key.includes('replica="desk-eu-1"'))).toEqual([]);

    // Another host in the same process shares the process metrics, each with its own replica label.
    const other = new McpMetrics({ replica: 'desk-eu-2' });
    other.onModuleInit();
    expect(await other.metrics()).toMatch(/^mcp_process_resident_memory_bytes\{replica="desk-eu-2"\} \d/m);
    expect(await metrics.metrics()).toMatch(/^mcp_process_resident_memory_bytes\{replica="desk-eu-1"\} \d/m);
    // Without a replica, no such label.
    expect(await new McpMetrics({ processMetrics: false, inFlight: () => 0 }).metrics()).toMatch(/^mcp_in_flight 0$/m);
  });

  it('observes without allocating per call once a series is known', async () => {
    const metrics = new McpMetrics({ entryOf, processMetrics: false });
    const known = event('tools/call', 'add', 1.5);
    const template = event('resources/read', 'kb://articles/hot', 0.7);
    for (let i = 0; i < 10_000; i++) {
      metrics.observe(known);
      metrics.observe(template);
    }
    // Garbage would show as scavenges: 2 million calls allocating even 16 bytes each fill the young
    // generation several times over. Without allocation there is at most a stray one — from other
    // work in this process (jest, a loaded machine), so the quietest of three rounds counts.
    const rounds: number[] = [];
    for (let round = 0; round < 3 && !(rounds.length > 0 && Math.min(...rounds) <= 1); round++) {
      const collections: string[] = [];
      const observer = new PerformanceObserver((list) =>
        collections.push(...list.getEntries().map((entry) => entry.name)),
      );
      observer.observe({ entryTypes: ['gc'] });
      for (let i = 0; i < 1_000_000; i++) {
        metrics.observe(known);
        metrics.observe(template);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      observer.disconnect();
      rounds.push(collections.length);
    }
    expect(Math.min(...rounds)).toBeLessThanOrEqual(1);
    const observed = 10_000 + 1_000_000 * rounds.length;
    expect(
      (await scrape(metrics)).get('mcp_request_duration_seconds_count{method="tools/call",kind="tool",target="add"}'),
    ).toBe(observed);
  });

  it('allocates per call when it does (the check above can fail)', async () => {
    const sink: object[] = [];
    const collections: string[] = [];
    const observer = new PerformanceObserver((list) =>
      collections.push(...list.getEntries().map((entry) => entry.name)),
    );
    observer.observe({ entryTypes: ['gc'] });
    for (let i = 0; i < 2_000_000; i++) {
      sink[i & 7] = { i, at: 'x' };
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    observer.disconnect();
    expect(collections.length).toBeGreaterThan(1);
  });
});
