import { hostname } from 'node:os';
import type { ConnectionOptions } from 'node:tls';
import { postBatch, urlProblems, type AuditPostTarget } from './audit-http-post';
import { batchBytesOf } from './audit-chain';
import type { AuditRecord } from './audit-record';
import type { AuditSink } from './audit-sink';
import { sinkOptionsError } from './sink-options.error';

/** Options of `OtlpLogsAuditSink`. */
export interface OtlpLogsAuditSinkOptions {
  /** The collector's OTLP/HTTP logs endpoint, e.g. `https://otel-collector:4318/v1/logs`. */
  url: string;
  /** The sink's name in health and metrics. @default 'otlp' */
  name?: string;
  /** `service.name` of the resource. @default 'nest-mcp-host' */
  serviceName?: string;
  /** Headers sent with every export (an API key, say). */
  headers?: Record<string, string>;
  /** The longest one export may take, the whole answer included (ms). @default 10_000 */
  timeoutMs?: number;
  tls?: ConnectionOptions;
  /** Allow a plain `http` URL off loopback. @default false */
  allowHttp?: boolean;
}

/** OTLP's severity numbers (INFO, WARN). */
const INFO = 9;
const WARN = 13;

const text = (key: string, value: string | null) =>
  value === null ? undefined : { key, value: { stringValue: value } };

/**
 * Forwards audit records as OpenTelemetry log records (OTLP/HTTP, JSON encoding): one export per
 * batch, each record's body its JSON line as the trail stored it (so the chain can be checked
 * in what the log backend kept), with `mcp.audit.chain`, `mcp.audit.seq`, `mcp.audit.outcome`,
 * `mcp.method`, `mcp.target` and `enduser.id` as attributes and the record's trace id. Use it
 * with `audit.forward`.
 *
 * @example
 * ```ts
 * audit: { forward: [new OtlpLogsAuditSink({ url: 'https://otel-collector:4318/v1/logs' })] }
 * ```
 * @throws when an option is invalid (every problem at once)
 */
export class OtlpLogsAuditSink implements AuditSink {
  readonly name: string;
  private readonly target: AuditPostTarget;
  private readonly resource: unknown;

  constructor(private readonly options: OtlpLogsAuditSinkOptions) {
    const problems = urlProblems(options?.url, options?.allowHttp === true, 'https://otel-collector:4318/v1/logs');
    const timeoutMs = options?.timeoutMs ?? 10_000;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1) problems.push('timeoutMs: give a positive integer');
    if (problems.length > 0) throw sinkOptionsError('OtlpLogsAuditSink', problems);
    this.name = options.name ?? 'otlp';
    this.target = {
      url: new URL(options.url),
      timeoutMs,
      sink: 'OtlpLogsAuditSink',
      ...(options.tls && { tls: options.tls }),
    };
    this.resource = {
      attributes: [text('service.name', options.serviceName ?? 'nest-mcp-host'), text('host.name', hostname())],
    };
  }

  async append(records: readonly AuditRecord[]): Promise<void> {
    const lines = batchBytesOf(records).toString('utf8').split('\n');
    const logRecords = records.map((record, index) => {
      const nanos = `${Date.parse(record.time)}000000`;
      return {
        timeUnixNano: nanos,
        observedTimeUnixNano: nanos,
        severityNumber: record.outcome === 'ok' ? INFO : WARN,
        severityText: record.outcome === 'ok' ? 'INFO' : 'WARN',
        body: { stringValue: lines[index] },
        attributes: [
          text('mcp.audit.chain', record.chain),
          { key: 'mcp.audit.seq', value: { intValue: String(record.seq) } },
          text('mcp.audit.outcome', record.outcome),
          text('mcp.method', record.method),
          text('mcp.target', record.target),
          text('enduser.id', record.principal),
        ].filter(Boolean),
        ...(record.traceId && { traceId: record.traceId }),
      };
    });
    const body = JSON.stringify({
      resourceLogs: [{ resource: this.resource, scopeLogs: [{ scope: { name: 'nest-mcp-host.audit' }, logRecords }] }],
    });
    await postBatch(this.target, Buffer.from(body), { ...this.options.headers, 'content-type': 'application/json' });
  }
}
