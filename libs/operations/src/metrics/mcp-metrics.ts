import type { Histogram, Metric, Registry } from 'prom-client';
import { optionalDependency, type McpTransportKind } from '#libs/core';
import type { AuditForwardHealth, AuditTrailHealth } from '#libs/security';
import type { McpEntryKind, McpRequestEvent, McpRequestObserver } from '#libs/protocol';
import { MCP_METHOD_NAMES, type McpRequestObservers } from '#libs/protocol';
import { OUTCOME_INDEX, OUTCOMES } from '../stats/outcome-index';

/** Upper bounds (seconds) of `mcp_request_duration_seconds`: 1 ms to 30 s. */
export const MCP_DURATION_BUCKETS: readonly number[] = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
];
/** The `target` (and `method`) label of names outside the catalog (or beyond `maxSeries`). */
export const OTHER_LABEL = 'other';

/**
 * The `method` label's values: the methods the host answers (and `tasks/run`, a task's background
 * run). Anything else a client sends is counted as `other`, so callers cannot grow the label set.
 */
const KNOWN_METHODS: ReadonlySet<string> = new Set(MCP_METHOD_NAMES);
/** Refusals counted on their own, by transport (`mcp_throttled_total`, …). */
const REFUSALS = ['throttled', 'denied', 'unauthenticated'] as const;
const TRANSPORTS: readonly McpTransportKind[] = ['http', 'stdio', 'in-process', 'cli'];
/** Raw names (unknown methods, template-matched URIs) remembered as aliases of their series. */
const MAX_ALIASES = 10_000;

/** Options of `McpMetrics`: how request targets become label values, and the gauges it reads. */
export interface McpMetricsOptions {
  /**
   * The catalog entry a target counts for (tool or prompt name, resource URI or URI template), or
   * `undefined` for names the catalog does not have (counted as `other`). Without it every target
   * is its own label value: give it whenever callers choose the names.
   */
  entryOf?: (kind: McpEntryKind, target: string) => string | undefined;
  /** Calls running now (`mcp_in_flight`). */
  inFlight?: () => number;
  /** Live sessions (`mcp_sessions_active`). */
  sessions?: () => number;
  /** The audit trail's counters (`mcp_audit_*`); leave out when there is no trail. */
  audit?: () => AuditTrailHealth;
  /** Approval requests waiting for a decision (`mcp_approvals_pending`); leave out without approvals. */
  approvalsPending?: () => Promise<number> | number;
  /** Registers the metrics as an observer of every finished request on module init. */
  observers?: McpRequestObservers;
  /** Adds the process and Node.js metrics of `collectDefaultMetrics` (prefixed `mcp_`). @default true */
  processMetrics?: boolean;
  /** Most (method, kind, target) series; later targets count as `other`. @default 2000 */
  maxSeries?: number;
  /**
   * Adds the label `replica` with this value to every metric the registry exports (the process
   * metrics and your own too), so that the series of several replicas stay apart. `McpModule`
   * gives its `replica` option. @default no such label
   */
  replica?: string;
}

interface AddedGauge {
  name: string;
  help: string;
  labelNames: string[];
  read: () => [Record<string, string>, number][];
}

/** A prom-client gauge reading an added source when scraped. */
function labelledGauge(Gauge: typeof import('prom-client').Gauge, added: AddedGauge): Metric {
  const { name, help, labelNames, read } = added;
  return new Gauge({
    name,
    help,
    labelNames,
    registers: [],
    collect() {
      this.reset();
      for (const [labels, value] of read()) this.set(labels, value);
    },
  }) as unknown as Metric;
}

/**
 * prom-client is loaded when the registry is first used (the `metrics` option on, or a host that
 * reads `registry`), not when the library is: `observe()` keeps its counts without it.
 */
const promClient = optionalDependency(
  'prom-client',
  'metrics (the `metrics` option, or McpMetrics.registry)',
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (): typeof import('prom-client') => require('prom-client'),
);

/** The counts of one (method, kind, target) combination. */
class RequestSeries {
  /** Non-cumulative; the last slot is above the highest bound. */
  readonly buckets = new Float64Array(MCP_DURATION_BUCKETS.length + 1);
  readonly outcomes = new Float64Array(OUTCOMES.length);
  sum = 0;
  count = 0;

  constructor(readonly labels: { method: string; kind: string; target: string }) {}
}

/** The series of one method label. */
class MethodSeries {
  /** Requests that name no catalog entry (lists, `initialize`, …). */
  plain: RequestSeries | undefined;
  /** By raw target and by label (aliases point to the series of their label). */
  readonly byKind: Record<McpEntryKind, Map<string, RequestSeries>> = {
    tool: new Map(),
    prompt: new Map(),
    resource: new Map(),
  };

  constructor(readonly label: string) {}
}

type SeriesHistogram = Histogram<'method' | 'kind' | 'target'>;
let seriesHistogramClass:
  (new (name: string, help: string, all: () => Iterable<RequestSeries>) => SeriesHistogram) | undefined;

/**
 * `mcp_request_duration_seconds`, exposed from the counts `McpMetrics` keeps itself: prom-client's
 * own `observe()` hashes the labels into a new string on every call, which the request path avoids.
 * The class extends prom-client's `Histogram`, so it is defined once prom-client is loaded.
 */
function seriesHistogram(metricName: string, metricHelp: string, all: () => Iterable<RequestSeries>): SeriesHistogram {
  seriesHistogramClass ??= class extends promClient().Histogram<'method' | 'kind' | 'target'> {
    constructor(
      private readonly metricName: string,
      private readonly metricHelp: string,
      private readonly all: () => Iterable<RequestSeries>,
    ) {
      super({
        name: metricName,
        help: metricHelp,
        labelNames: ['method', 'kind', 'target'],
        buckets: [...MCP_DURATION_BUCKETS],
        registers: [],
      });
    }

    override get(): ReturnType<Histogram['get']> {
      return this.getForPromString();
    }

    /** What the registry prints (it prefers this to `get()`). */
    async getForPromString(): Promise<Awaited<ReturnType<Histogram['get']>>> {
      const bucket = `${this.metricName}_bucket`;
      const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
      for (const series of this.all()) {
        if (series.count === 0) continue;
        let cumulative = 0;
        for (let i = 0; i < MCP_DURATION_BUCKETS.length; i++) {
          cumulative += series.buckets[i];
          values.push({
            labels: { ...series.labels, le: MCP_DURATION_BUCKETS[i] },
            value: cumulative,
            metricName: bucket,
          });
        }
        values.push({ labels: { ...series.labels, le: '+Inf' }, value: series.count, metricName: bucket });
        values.push({ labels: series.labels, value: series.sum, metricName: `${this.metricName}_sum` });
        values.push({ labels: series.labels, value: series.count, metricName: `${this.metricName}_count` });
      }
      // prom-client's typings say `type` is an enum; the registry prints the string it really holds.
      const data = { name: this.metricName, help: this.metricHelp, type: 'histogram', values, aggregator: 'sum' };
      return data as unknown as Awaited<ReturnType<Histogram['get']>>;
    }

    override reset(): void {
      // The counts belong to McpMetrics; a registry reset does not clear them.
    }
  };
  return new seriesHistogramClass(metricName, metricHelp, all);
}

let processRegistry: Registry | undefined;

/**
 * The process and Node.js metrics, collected once per process: they describe the process, and each
 * `collectDefaultMetrics` call starts its own event-loop monitor and GC observer that are never
 * stopped (one per test application would pile up).
 */
function processMetrics(): Metric[] {
  if (!processRegistry) {
    const { Registry, collectDefaultMetrics } = promClient();
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry, prefix: 'mcp_' });
  }
  return processRegistry.getMetricsAsArray() as unknown as Metric[];
}

/**
 * Prometheus metrics of the host, in a registry of its own (never prom-client's global one):
 *
 * | metric | type | labels |
 * |---|---|---|
 * | `mcp_requests_total` | counter | `method`, `kind`, `target`, `outcome` |
 * | `mcp_request_duration_seconds` | histogram (1 ms … 30 s) | `method`, `kind`, `target` |
 * | `mcp_in_flight` | gauge | |
 * | `mcp_throttled_total`, `mcp_denied_total`, `mcp_unauthenticated_total` | counter | `transport` |
 * | `mcp_sessions_active` | gauge | |
 * | `mcp_guardrail_findings_total` | counter | `detector`, `in` (`arguments`/`result`), `action` (`block`/`redact`/`flag`): what governance guardrails found, never the value |
 * | `mcp_policy_refusals_total` | counter | `policy`, `dry_run`: calls a governance policy refused (or, in dry-run mode, would have) |
 * | `mcp_audit_queue_depth`, `mcp_audit_spooled_records`, `mcp_audit_spooled_bytes` (gauges), `mcp_audit_written_total`, `mcp_audit_dropped_total`, `mcp_audit_failures_total` | | (with an audit trail) |
 * | `mcp_audit_forward_up`, `mcp_audit_forward_spooled_records`, `mcp_audit_forward_spooled_bytes` (gauges), `mcp_audit_forward_delivered_total`, `mcp_audit_forward_failures_total`, `mcp_audit_forward_dropped_total` | | `sink` (each of `audit.forward`) |
 * | `mcp_process_*`, `mcp_nodejs_*` | | `collectDefaultMetrics` |
 *
 * With `replica`, every metric has the label `replica` too.
 *
 * `target` is bounded: only names the catalog has (tools and prompts by name, resources by URI or
 * by the URI template they matched), else `other`; `method` only the methods the host knows.
 * `observe()` runs on every request: after the first request of a kind it allocates nothing (the
 * counts live in typed arrays per series, turned into prom-client samples only when scraped).
 *
 * @example
 * ```ts
 * const metrics = new McpMetrics({ entryOf: (kind, name) => registry.has(name) ? name : undefined });
 * metrics.observe(event);
 * await metrics.metrics(); // '# HELP mcp_requests_total …'
 * metrics.registry.registerMetric(myCounter); // your own metrics on the same endpoint
 * ```
 */
export class McpMetrics implements McpRequestObserver {
  private promRegistry: Registry | undefined;
  private readonly methods = new Map<string, MethodSeries>();
  private readonly all: RequestSeries[] = [];
  /** `REFUSALS.length` counts per transport. */
  private readonly refused = new Float64Array(TRANSPORTS.length * REFUSALS.length);
  private readonly maxSeries: number;
  private aliases = 0;
  private started = false;
  /** Guardrail findings by `detector|in|action`, and policy refusals by policy id (both bounded by the configuration). */
  private readonly findings = new Map<string, { labels: Record<string, string>; count: number }>();
  private readonly policyRefusals = new Map<string, { labels: Record<string, string>; count: number }>();
  /** Gauges other parts of the host added (`addGauge`), registered with the registry when it is made. */
  private readonly added: AddedGauge[] = [];

  constructor(private readonly options: McpMetricsOptions = {}) {
    this.maxSeries = options.maxSeries ?? 2_000;
  }

  /** Every metric `metrics()` exposes; add your own here. Loads prom-client on first use. */
  get registry(): Registry {
    return (this.promRegistry ??= this.createRegistry());
  }

  /** The registry with the host's metrics, reading the counts `observe()` keeps. */
  private createRegistry(): Registry {
    const { Counter, Gauge, Registry } = promClient();
    const registry = new Registry();
    const options = this.options;
    // Applied when the registry prints, so it reaches the shared process metrics and metrics
    // registered later, without being one of their label names.
    if (options.replica !== undefined) registry.setDefaultLabels({ replica: options.replica });
    const all = this.all;
    const register = (metric: unknown) => registry.registerMetric(metric as Metric);
    register(
      new Counter({
        name: 'mcp_requests_total',
        help: 'MCP requests answered (and transport refusals, method ""), by method, catalog entry kind and target, and outcome.',
        labelNames: ['method', 'kind', 'target', 'outcome'],
        registers: [],
        collect() {
          this.reset();
          for (const series of all) {
            for (let outcome = 0; outcome < OUTCOMES.length; outcome++) {
              const count = series.outcomes[outcome];
              if (count > 0) this.inc({ ...series.labels, outcome: OUTCOMES[outcome] }, count);
            }
          }
        },
      }),
    );
    register(
      seriesHistogram(
        'mcp_request_duration_seconds',
        'Time from receipt to answer of MCP requests, in seconds.',
        () => all,
      ),
    );
    const refused = this.refused;
    REFUSALS.forEach((refusal, index) =>
      register(
        new Counter({
          name: `mcp_${refusal}_total`,
          help: `Requests refused as ${refusal}, by transport.`,
          labelNames: ['transport'],
          registers: [],
          collect() {
            this.reset();
            TRANSPORTS.forEach((transport, t) => this.inc({ transport }, refused[t * REFUSALS.length + index]));
          },
        }),
      ),
    );
    const counted = (name: string, help: string, labelNames: string[], counts: McpMetrics['findings']) =>
      register(
        new Counter({
          name,
          help,
          labelNames,
          registers: [],
          collect() {
            this.reset();
            for (const { labels, count } of counts.values()) this.inc(labels, count);
          },
        }),
      );
    counted(
      'mcp_guardrail_findings_total',
      'What governance guardrails found in arguments and results (never the value), by detector, where and the action taken.',
      ['detector', 'in', 'action'],
      this.findings,
    );
    counted(
      'mcp_policy_refusals_total',
      'Calls a governance policy refused (dry_run "true": would have refused), by policy id.',
      ['policy', 'dry_run'],
      this.policyRefusals,
    );
    const gauge = (name: string, help: string, read: (() => number) | undefined) =>
      read &&
      register(
        new Gauge({
          name,
          help,
          registers: [],
          collect() {
            this.set(read());
          },
        }),
      );
    gauge('mcp_in_flight', 'Calls (tools, prompts, resource reads) running now.', options.inFlight);
    const pending = options.approvalsPending;
    if (pending)
      register(
        new Gauge({
          name: 'mcp_approvals_pending',
          help: 'Approval requests waiting for a decision.',
          registers: [],
          async collect() {
            this.set(await pending());
          },
        }),
      );
    for (const added of this.added) register(labelledGauge(Gauge, added));
    gauge('mcp_sessions_active', 'Live MCP sessions (stateful HTTP sessions and the stdio session).', options.sessions);
    const audit = options.audit;
    if (audit) {
      gauge('mcp_audit_queue_depth', 'Audit records waiting to be written.', () => audit().queued);
      gauge(
        'mcp_audit_spooled_records',
        'Audit records in the local spool, waiting for the sink to return (buffered policy).',
        () => audit().spooled,
      );
      gauge('mcp_audit_spooled_bytes', 'Bytes of the local audit spool not replayed yet.', () => audit().spoolBytes);
      const total = (name: string, help: string, read: (health: AuditTrailHealth) => number) =>
        register(
          new Counter({
            name,
            help,
            registers: [],
            collect() {
              this.reset();
              this.inc(read(audit()));
            },
          }),
        );
      total('mcp_audit_written_total', 'Audit records written to the sink.', (health) => health.written);
      total(
        'mcp_audit_dropped_total',
        'Audit records dropped (the buffer full and the spool not writable, or the trail closed).',
        (health) => health.dropped,
      );
      total('mcp_audit_failures_total', 'Failed writes to the audit sink.', (health) => health.failures);
      // One series per forwarding sink (a SIEM), labelled with its name.
      const perSink = (
        kind: typeof Gauge | typeof Counter,
        name: string,
        help: string,
        read: (health: AuditForwardHealth) => number,
      ) =>
        register(
          new kind({
            name,
            help,
            labelNames: ['sink'],
            registers: [],
            collect() {
              this.reset();
              for (const forward of audit().forwards) {
                if (this instanceof Gauge) this.set({ sink: forward.sink }, read(forward));
                else this.inc({ sink: forward.sink }, read(forward));
              }
            },
          }),
        );
      perSink(Gauge, 'mcp_audit_forward_up', 'Whether the forwarding audit sink delivers (1) or fails (0).', (f) =>
        f.state === 'ok' ? 1 : 0,
      );
      perSink(
        Gauge,
        'mcp_audit_forward_spooled_records',
        "Audit records waiting in a forwarding sink's spool.",
        (f) => f.spooled,
      );
      perSink(
        Gauge,
        'mcp_audit_forward_spooled_bytes',
        "Bytes waiting in a forwarding sink's spool.",
        (f) => f.spoolBytes,
      );
      perSink(
        Counter,
        'mcp_audit_forward_delivered_total',
        'Audit records delivered to a forwarding sink.',
        (f) => f.delivered,
      );
      perSink(
        Counter,
        'mcp_audit_forward_failures_total',
        'Failed deliveries to a forwarding sink (each retried).',
        (f) => f.failures,
      );
      perSink(
        Counter,
        'mcp_audit_forward_dropped_total',
        "Audit records a forwarding sink's spool could not take.",
        (f) => f.dropped,
      );
    }
    // The process metrics with the registry, that is with the first scrape: a host pays for
    // prom-client and its observers when something reads its metrics, not at start-up.
    if (options.processMetrics !== false) for (const metric of processMetrics()) registry.registerMetric(metric);
    return registry;
  }

  /**
   * Adds a gauge read when scraped, one sample per label set `read` returns (the gateway's
   * `mcp_upstream_*` are made so). Costs nothing until the registry is used.
   * @example
   * metrics.addGauge('mcp_upstream_up', 'Connected upstreams.', ['upstream'], () => [[{ upstream: 'wiki' }, 1]]);
   */
  addGauge(name: string, help: string, labelNames: string[], read: () => [Record<string, string>, number][]): void {
    const added = { name, help, labelNames, read };
    this.added.push(added);
    if (this.promRegistry)
      this.promRegistry.registerMetric(labelledGauge(promClient().Gauge, added) as unknown as Metric);
  }

  /** Starts observing requests (when given `observers`); the process metrics come with the registry. */
  onModuleInit(): void {
    if (this.started) return;
    this.started = true;
    this.options.observers?.add(this);
  }

  /** The metrics in Prometheus text format. */
  metrics(): Promise<string> {
    return this.registry.metrics();
  }

  /** The `Content-Type` of `metrics()`. */
  get contentType(): string {
    return this.registry.contentType;
  }

  observe(event: McpRequestEvent): void {
    // A refusal before any method ran is counted as one (method ""), whatever it asked for (an admin action).
    const method = (!event.refusal && event.method) || '';
    const table = this.methods.get(method) ?? this.methodSeries(method);
    const kind = event.entryKind;
    const target = event.target;
    let series: RequestSeries;
    if (kind === undefined || target === undefined) {
      series = table.plain ??= this.track(new RequestSeries({ method: table.label, kind: '', target: '' }));
    } else {
      const map = table.byKind[kind];
      if (!map) return;
      series = map.get(target) ?? this.firstSight(table, kind, map, target);
    }
    const seconds = event.latencyMs > 0 ? event.latencyMs / 1000 : 0;
    let bucket = 0;
    while (bucket < MCP_DURATION_BUCKETS.length && seconds > MCP_DURATION_BUCKETS[bucket]) bucket++;
    series.buckets[bucket]++;
    series.sum += seconds;
    series.count++;
    const outcome = OUTCOME_INDEX[event.outcome];
    series.outcomes[typeof outcome === 'number' ? outcome : OUTCOME_INDEX.error]++;
    if (
      outcome === OUTCOME_INDEX.throttled ||
      outcome === OUTCOME_INDEX.denied ||
      outcome === OUTCOME_INDEX.unauthenticated
    ) {
      const refusal = outcome === OUTCOME_INDEX.throttled ? 0 : outcome === OUTCOME_INDEX.denied ? 1 : 2;
      this.refused[TRANSPORTS.indexOf(event.transport) * REFUSALS.length + refusal]++;
    }
    if (event.governance !== undefined) this.governed(event.governance);
  }

  /** Counts what governance found and refused (only calls it had something to say about get here). */
  private governed({ findings, refused }: NonNullable<McpRequestEvent['governance']>): void {
    if (findings)
      for (const finding of findings)
        bump(this.findings, `${finding.detector}|${finding.in}|${finding.action}`, () => ({
          detector: finding.detector,
          in: finding.in,
          action: finding.action,
        }));
    if (refused)
      for (const refusal of refused)
        bump(this.policyRefusals, `${refusal.policy}|${refusal.dryRun === true}`, () => ({
          policy: refusal.policy,
          dry_run: String(refusal.dryRun === true),
        }));
  }

  private methodSeries(method: string): MethodSeries {
    const label = method === '' || KNOWN_METHODS.has(method) ? method : OTHER_LABEL;
    let table = this.methods.get(label);
    if (!table) {
      table = new MethodSeries(label);
      this.methods.set(label, table);
    }
    // A made-up method is looked up again next time once the aliases are used up.
    if (label !== method && this.aliases < MAX_ALIASES) {
      this.methods.set(method, table);
      this.aliases++;
    }
    return table;
  }

  private firstSight(
    table: MethodSeries,
    kind: McpEntryKind,
    map: Map<string, RequestSeries>,
    target: string,
  ): RequestSeries {
    const entry = this.options.entryOf ? this.options.entryOf(kind, target) : target;
    const label = entry === undefined || (this.all.length >= this.maxSeries && !map.has(entry)) ? OTHER_LABEL : entry;
    let series = map.get(label);
    if (!series) {
      series = this.track(new RequestSeries({ method: table.label, kind, target: label }));
      map.set(label, series);
    }
    // Names outside the catalog are not remembered (a tool of that name may be added later);
    // URIs that matched a template are, up to a limit.
    if (entry !== undefined && label !== target && this.aliases < MAX_ALIASES) {
      map.set(target, series);
      this.aliases++;
    }
    return series;
  }

  private track(series: RequestSeries): RequestSeries {
    this.all.push(series);
    return series;
  }
}

/** Most label sets a governance counter keeps (detectors and policy ids are configured: far fewer). */
const MAX_GOVERNANCE_SERIES = 500;

function bump(
  counts: Map<string, { labels: Record<string, string>; count: number }>,
  key: string,
  labels: () => Record<string, string>,
): void {
  const known = counts.get(key);
  if (known) known.count++;
  else if (counts.size < MAX_GOVERNANCE_SERIES) counts.set(key, { labels: labels(), count: 1 });
}
