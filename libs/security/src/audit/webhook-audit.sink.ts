import { createHmac } from 'node:crypto';
import type { ConnectionOptions } from 'node:tls';
import { postBatch, urlProblems, type AuditPostTarget } from './audit-http-post';
import { batchBytesOf } from './audit-chain';
import type { AuditRecord } from './audit-record';
import type { AuditSink } from './audit-sink';
import { sinkOptionsError } from './sink-options.error';

/** Options of `WebhookAuditSink`. */
export interface WebhookAuditSinkOptions {
  /** The receiver, `https://…` (plain `http` only on loopback, or with `allowHttp`). */
  url: string;
  /** Key of the HMAC-SHA256 signature the receiver checks (at least 32 characters). */
  secret: string;
  /** The sink's name in health and metrics. @default 'webhook' */
  name?: string;
  /** The longest one delivery may take, the whole answer included (ms); then the batch is sent again. @default 10_000 */
  timeoutMs?: number;
  /** Headers sent with every batch (a collector's token, say). */
  headers?: Record<string, string>;
  /** `node:tls` options (`ca` of a private CA, `cert`/`key` for mutual TLS). */
  tls?: ConnectionOptions;
  /** Allow a plain `http` URL off loopback. @default false */
  allowHttp?: boolean;
}

/** The signature header: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
export const AUDIT_WEBHOOK_SIGNATURE_HEADER = 'x-mcp-audit-signature';

/**
 * Forwards audit records to an HTTPS receiver: one `POST` per batch, its body the records'
 * JSON lines as the trail stored them (`application/x-ndjson`), signed with HMAC-SHA256 over the
 * timestamp and the body (`X-Mcp-Audit-Signature: t=…,v1=…`; a receiver rejects a signature
 * that does not match or is older than it allows). A batch sent again — after a timeout, a
 * 5xx, a dropped connection — is byte for byte the same and has the same `Idempotency-Key`
 * (`<chain>:<first seq>-<last seq>`), so a receiver that keeps the keys it took stores each
 * record once. Any answer other than 2xx is a failure. Use it with `audit.forward` (records
 * delivered from a spool, retried with back-off).
 *
 * @example
 * ```ts
 * audit: { forward: [new WebhookAuditSink({ url: 'https://siem.example/mcp-audit', secret: process.env.AUDIT_WEBHOOK_SECRET! })] }
 * // receiver: hmac = HMAC_SHA256(secret, `${t}.${rawBody}`) must equal v1
 * ```
 * @throws when an option is invalid (every problem at once)
 */
export class WebhookAuditSink implements AuditSink {
  readonly name: string;
  private readonly target: AuditPostTarget;

  constructor(private readonly options: WebhookAuditSinkOptions) {
    const problems = urlProblems(options?.url, options?.allowHttp === true, 'https://siem.example/mcp-audit');
    if (typeof options?.secret !== 'string' || options.secret.length < 32)
      problems.push(
        'secret: give a key of at least 32 characters (e.g. openssl rand -hex 32), shared with the receiver',
      );
    const timeoutMs = options?.timeoutMs ?? 10_000;
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1) problems.push('timeoutMs: give a positive integer');
    if (problems.length > 0) throw sinkOptionsError('WebhookAuditSink', problems);
    this.name = options.name ?? 'webhook';
    this.target = {
      url: new URL(options.url),
      timeoutMs,
      sink: 'WebhookAuditSink',
      ...(options.tls && { tls: options.tls }),
    };
  }

  async append(records: readonly AuditRecord[]): Promise<void> {
    const body = batchBytesOf(records);
    const first = records[0];
    const last = records[records.length - 1];
    await postBatch(this.target, body, {
      ...this.options.headers,
      'content-type': 'application/x-ndjson',
      'idempotency-key': `${first.chain}:${first.seq}-${last.seq}`,
      [AUDIT_WEBHOOK_SIGNATURE_HEADER]: signAuditWebhook(this.options.secret, body),
    });
  }
}

/**
 * The signature header's value for `body` (what a receiver recomputes to check it).
 * @example
 * signAuditWebhook(secret, body) // 't=1764316800,v1=5c1e…'
 */
export function signAuditWebhook(secret: string, body: Buffer, at = Math.floor(Date.now() / 1000)): string {
  const mac = createHmac('sha256', secret).update(`${at}.`).update(body).digest('hex');
  return `t=${at},v1=${mac}`;
}
