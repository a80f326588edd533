import { hostname } from 'node:os';
import { basename, dirname, extname, join, resolve } from 'node:path';
import type { AuditForwarderSettings } from './audit-forwarder';
import type { AuditFailurePolicy, AuditTrailSettings } from './audit-trail';
import type { AuditSink } from './audit-sink';
import { JsonlAuditSink } from './jsonl-audit.sink';

/**
 * The audit trail (`McpModule` option `audit`): one hash-chained record per tool call, prompt,
 * resource read, task request and refusal.
 *
 * @example
 * ```ts
 * audit: { file: '/var/log/mcp/audit.jsonl' }                       // embedded JSON-lines trail
 * audit: { sink: new PostgresAuditSink({ connectionString }), policy: 'buffered', bufferSize: 50_000 }
 * ```
 */
export interface McpAuditOptions {
  /** Where records are stored. @default a `JsonlAuditSink` writing `file` */
  sink?: AuditSink;
  /** The JSON-lines file of the default sink. @default 'audit/audit.jsonl' */
  file?: string;
  /** Rotate the default sink's file past this size (bytes). @default 67_108_864 */
  rotateBytes?: number;
  /** How often the default sink forces records to disk (ms; `0`: after every batch). @default 1_000 */
  syncIntervalMs?: number;
  /** `fail-closed`: calls are refused while records cannot be written; `buffered`: calls go on, records wait in memory. @default 'fail-closed' */
  policy?: AuditFailurePolicy;
  /** Most records waiting in memory; past it, calls are refused (`fail-closed`) or records dropped and counted (`buffered`). @default 10_000 */
  bufferSize?: number;
  /** How long a record may wait before its batch is written (ms). Short keeps records from outliving the young generation of the heap. @default 10 */
  flushIntervalMs?: number;
  /** Most records written at once. @default 500 */
  batchSize?: number;
  /** This instance's chain id; give each replica its own. @default the host name */
  chain?: string;
  /** Records kept in memory for the admin dashboard. @default 1_000 */
  recentSize?: number;
  /** Key of the argument digests (HMAC-SHA256 instead of SHA-256), so guessable sensitive values cannot be confirmed from a digest. */
  digestKey?: string;
  /**
   * `buffered` only: the local append-only file where records go when the sink is down and
   * `bufferSize` records already wait in memory; replayed in chain order when the sink is back
   * (and at the next start, if the host stopped first). Only a disk that cannot take them drops
   * records. Must not be the trail file.
   * @default 'spool/<chain>.jsonl' beside `file` (`audit/spool/<chain>.jsonl` by default and with a sink of your own)
   */
  spoolFile?: string;
  /**
   * Refusals before any method ran (no or a bad credential, a forbidden Host, a body too large)
   * from one address for one reason make one record at once and one more, with a `count`, for
   * the rest of this window. @default 60_000
   */
  refusalWindowMs?: number;
  /**
   * Further sinks that get every record once `sink` stored it — a SIEM: `SyslogAuditSink`
   * (RFC 5424 over TLS), `WebhookAuditSink` (signed HTTPS), `OtlpLogsAuditSink`, or your own.
   * Each is delivered from a spool of its own (`<spool dir>/<chain>.<name>.forward.jsonl`), in
   * chain order, retried with back-off while it is down, and has its own health in readiness
   * (`audit-forward:<name>`, never required: calls go on) and metrics (`mcp_audit_forward_*`).
   * Give each a distinct `name`. @default []
   */
  forward?: AuditSink[];
  /** Longest back-off between deliveries to a forwarding sink that fails (ms). @default 30_000 */
  forwardMaxRetryMs?: number;
}

/** A trail as the options make it: its sink, settings and forwarding sinks. */
export interface AuditTrailParts {
  sink: AuditSink;
  settings: AuditTrailSettings;
  /** The forwarding sinks, each with its spool and back-off. */
  forward: { sink: AuditSink; settings: AuditForwarderSettings }[];
}

export interface ResolvedAuditOptions extends AuditTrailParts {
  /**
   * The trail of a command-line run (`runMcpCli`) beside the hosts of the same options: a chain of
   * its own (`<chain>.cli`), written by one command at a time (a command waits up to 10 s for
   * another's), to a file of its own beside the host's (`audit/audit.cli.jsonl`: a host holds its
   * file while it runs) and spools of its own; at exit it waits at most 1 s for the forwarding
   * sinks (what they did not take is delivered by the next command).
   */
  commandLine(): AuditTrailParts;
}

/** How long a command waits for another command's hold on their chain. */
const COMMAND_LINE_LOCK_WAIT_MS = 10_000;
/** How long a command, at exit, waits for the forwarding sinks (the next command delivers the rest). */
const COMMAND_LINE_FORWARD_WAIT_MS = 1_000;

const KNOWN = [
  'sink',
  'file',
  'rotateBytes',
  'syncIntervalMs',
  'policy',
  'bufferSize',
  'flushIntervalMs',
  'batchSize',
  'chain',
  'recentSize',
  'digestKey',
  'spoolFile',
  'refusalWindowMs',
  'forward',
  'forwardMaxRetryMs',
];

/**
 * Validates the `audit` option; `undefined` (or `false`) turns the trail off.
 * @param report called once per problem, with how to fix it
 */
export function resolveAuditOptions(
  value: unknown,
  report: (option: string, problem: string, fix: string) => void,
): ResolvedAuditOptions | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) value = {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    report('audit', 'must be an object or false', "e.g. audit: { file: 'audit/audit.jsonl' }");
    return undefined;
  }
  const o = value as McpAuditOptions & Record<string, unknown>;
  for (const key of Object.keys(o)) {
    if (!KNOWN.includes(key))
      report(`audit.${key}`, 'is not a known option', `remove it; known options are: ${KNOWN.join(', ')}`);
  }
  const integer = (key: keyof McpAuditOptions, fallback: number, min: number): number => {
    const given = o[key] ?? fallback;
    if (typeof given !== 'number' || !Number.isInteger(given) || given < min) {
      report(
        `audit.${key}`,
        `must be an integer ≥ ${min}, got ${JSON.stringify(given)}`,
        `set ${key}: ${fallback} (the default) or another integer ≥ ${min}`,
      );
      return fallback;
    }
    return given;
  };
  const text = (
    key: 'file' | 'chain' | 'digestKey' | 'spoolFile',
    fallback: string | undefined,
  ): string | undefined => {
    const given = o[key] ?? fallback;
    if (given !== undefined && (typeof given !== 'string' || !given.trim())) {
      report(`audit.${key}`, 'must be a non-empty string', `give a string or leave ${key} out`);
      return fallback;
    }
    return given;
  };
  const policy = o.policy ?? 'fail-closed';
  if (policy !== 'fail-closed' && policy !== 'buffered')
    report('audit.policy', `"${String(policy)}" is not a policy`, "use 'fail-closed' or 'buffered'");
  const file = text('file', 'audit/audit.jsonl')!;
  const rotateBytes = integer('rotateBytes', 64 * 2 ** 20, 1_024);
  const syncIntervalMs = integer('syncIntervalMs', 1_000, 0);
  if (
    o.sink !== undefined &&
    (typeof o.sink !== 'object' || o.sink === null || typeof (o.sink as AuditSink).append !== 'function')
  ) {
    report(
      'audit.sink',
      'must implement AuditSink (an object with append(records))',
      'pass e.g. new PostgresAuditSink({ connectionString }) or leave sink out for the JSON-lines file',
    );
  }
  for (const key of ['file', 'rotateBytes', 'syncIntervalMs'] as const) {
    if (o.sink !== undefined && o[key] !== undefined)
      report(`audit.${key}`, 'only applies to the default sink, but a sink is given', `remove ${key}, or remove sink`);
  }
  const chain = text('chain', hostname())!;
  // Next to the trail file (on the same volume), or under audit/ for a sink of its own.
  const spoolDir = join(o.sink === undefined ? dirname(file) : 'audit', 'spool');
  const spoolFile = text('spoolFile', join(spoolDir, `${safe(chain)}.jsonl`))!;
  if (o.spoolFile !== undefined && policy !== 'buffered')
    report('audit.spoolFile', "only applies to the 'buffered' policy", "set policy: 'buffered', or remove spoolFile");
  if (o.sink === undefined && resolve(spoolFile) === resolve(file)) {
    report(
      'audit.spoolFile',
      'is the trail file itself',
      `give the spool a file of its own, or leave spoolFile out (${join(spoolDir, 'CHAIN.jsonl')})`,
    );
  }
  const settings: AuditTrailSettings = {
    policy: policy === 'buffered' ? 'buffered' : 'fail-closed',
    bufferSize: integer('bufferSize', 10_000, 1),
    flushIntervalMs: integer('flushIntervalMs', 10, 1),
    batchSize: integer('batchSize', 500, 1),
    chain,
    recentSize: integer('recentSize', 1_000, 1),
    digestKey: text('digestKey', undefined),
    spoolFile: policy === 'buffered' ? spoolFile : undefined,
    refusalWindowMs: integer('refusalWindowMs', 60_000, 100),
  };
  const own = typeof o.sink?.append === 'function' ? o.sink : undefined;
  const sink = own ?? new JsonlAuditSink({ file, rotateBytes, syncIntervalMs });
  const forward = resolveForward(o, dirname(spoolFile), chain, settings.batchSize, integer, report);
  const commandLine = (): AuditTrailParts => {
    const runs = `${chain}.cli`;
    const runsSpool = o.spoolFile === undefined ? join(spoolDir, `${safe(runs)}.jsonl`) : besideAs(spoolFile, 'cli');
    return {
      sink: own ?? new JsonlAuditSink({ file: besideAs(file, 'cli'), rotateBytes, syncIntervalMs }),
      settings: {
        ...settings,
        chain: runs,
        spoolFile: settings.spoolFile && runsSpool,
        chainLock: { file: join(dirname(runsSpool), `${safe(runs)}.lock`), waitMs: COMMAND_LINE_LOCK_WAIT_MS },
        forwardCloseMs: COMMAND_LINE_FORWARD_WAIT_MS,
      },
      forward: forward.map((forwarding) => ({
        sink: forwarding.sink,
        settings: {
          ...forwarding.settings,
          spoolFile: join(
            dirname(forwarding.settings.spoolFile),
            `${safe(runs)}.${safe(forwarding.sink.name)}.forward.jsonl`,
          ),
        },
      })),
    };
  };
  return { sink, settings, forward, commandLine };
}

/** `audit/audit.jsonl` → `audit/audit.cli.jsonl`: a file of the same kind, beside it, for `role`. */
function besideAs(file: string, role: string): string {
  const extension = extname(file);
  return join(dirname(file), `${basename(file, extension)}.${role}${extension}`);
}

function resolveForward(
  o: McpAuditOptions,
  spoolDir: string,
  chain: string,
  batchSize: number,
  integer: (key: keyof McpAuditOptions, fallback: number, min: number) => number,
  report: (option: string, problem: string, fix: string) => void,
): ResolvedAuditOptions['forward'] {
  const maxRetryDelayMs = integer('forwardMaxRetryMs', 30_000, 100);
  if (o.forward === undefined) return [];
  if (!Array.isArray(o.forward)) {
    report(
      'audit.forward',
      'must be an array of sinks',
      'e.g. forward: [new SyslogAuditSink({ host, port, tls: true })]',
    );
    return [];
  }
  const names = new Set<string>();
  const resolved: ResolvedAuditOptions['forward'] = [];
  o.forward.forEach((sink: unknown, index) => {
    const given = sink as AuditSink | undefined;
    if (typeof given !== 'object' || given === null || typeof given.append !== 'function') {
      report(`audit.forward[${index}]`, 'must implement AuditSink', 'pass e.g. new WebhookAuditSink({ url, secret })');
      return;
    }
    if (given === o.sink) {
      report(
        `audit.forward[${index}]`,
        "is the trail's own sink",
        'forward to another sink, or remove it from forward',
      );
      return;
    }
    if (names.has(given.name)) {
      report(
        `audit.forward[${index}]`,
        `another sink is named "${given.name}"`,
        "give each a name of its own (option name: 'siem-eu')",
      );
      return;
    }
    names.add(given.name);
    const file = `${safe(chain)}.${safe(given.name)}.forward.jsonl`;
    resolved.push({
      sink: given,
      settings: { batchSize, spoolFile: join(spoolDir, file), retryDelayMs: 100, maxRetryDelayMs },
    });
  });
  return resolved;
}

const safe = (name: string): string => name.replace(/[^A-Za-z0-9._-]/g, '_');
