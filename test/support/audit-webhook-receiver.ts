import { createHmac, timingSafeEqual } from 'node:crypto';
import { appendFileSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestCertificates } from './test-certificates';

/**
 * A SIEM's HTTPS collector as a receiver of `WebhookAuditSink` would write one: it checks the
 * signature (HMAC-SHA256 of `<t>.<body>`), stores each batch once by its `Idempotency-Key`
 * (appending the body to its log), and can be made to misbehave: `drop` requests (the connection
 * closed with no answer, nothing stored), `fail` them (503, nothing stored), or `delay` them
 * (stored, answered after `delayMs`: later than the sender waits, so it sends the batch again).
 */
export interface AuditWebhookReceiver {
  readonly url: string;
  readonly log: string;
  /** What the next requests meet, in order; empty: each is taken at once. */
  readonly plan: ('drop' | 'fail' | 'delay')[];
  readonly seen: { key: string; outcome: 'stored' | 'repeat' | 'dropped' | 'failed' | 'delayed' | 'bad signature' }[];
  delayMs: number;
  close(): Promise<void>;
}

export async function startAuditWebhookReceiver(
  certs: TestCertificates,
  secret: string,
): Promise<AuditWebhookReceiver> {
  const log = join(mkdtempSync(join(tmpdir(), 'siem-webhook-')), 'received.jsonl');
  const keys = new Set<string>();
  const receiver = { plan: [], seen: [], delayMs: 0 } as unknown as AuditWebhookReceiver & { url: string; log: string };
  const server: Server = createServer({ cert: certs.cert, key: certs.key }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const key = String(request.headers['idempotency-key']);
      const [t, v1] = String(request.headers['x-mcp-audit-signature'] ?? '')
        .split(',')
        .map((part) => part.split('=')[1] ?? '');
      const expected = createHmac('sha256', secret).update(`${t}.`).update(body).digest();
      const given = Buffer.from(v1, 'hex');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        receiver.seen.push({ key, outcome: 'bad signature' });
        response.writeHead(401).end('bad signature');
        return;
      }
      const step = receiver.plan.shift();
      if (step === 'drop') {
        receiver.seen.push({ key, outcome: 'dropped' });
        request.socket.destroy();
        return;
      }
      if (step === 'fail') {
        receiver.seen.push({ key, outcome: 'failed' });
        response.writeHead(503).end('busy');
        return;
      }
      const repeat = keys.has(key);
      if (!repeat) {
        keys.add(key);
        appendFileSync(log, body);
      }
      receiver.seen.push({ key, outcome: step === 'delay' ? 'delayed' : repeat ? 'repeat' : 'stored' });
      const answer = () => response.writeHead(200).end('{}');
      if (step === 'delay') setTimeout(answer, receiver.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  Object.assign(receiver, {
    url: `https://localhost:${port}/mcp-audit`,
    log,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  return receiver;
}
