import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { readFileSync } from 'node:fs';
import { SyslogAuditSink, WebhookAuditSink, type AuditSink } from 'nest-mcp-host';
import { BenchModule, type BenchVariant } from './bench.module';

/** The SIEM sinks the trail forwards to: BENCH_AUDIT_SYSLOG (host:port, TLS with BENCH_AUDIT_CA), BENCH_AUDIT_WEBHOOK (+ _SECRET). */
function auditForward(): AuditSink[] {
  const env = process.env;
  const ca = env.BENCH_AUDIT_CA ? { ca: readFileSync(env.BENCH_AUDIT_CA) } : undefined;
  const sinks: AuditSink[] = [];
  if (env.BENCH_AUDIT_SYSLOG) {
    const [host, port] = env.BENCH_AUDIT_SYSLOG.split(':');
    sinks.push(new SyslogAuditSink({ host, port: Number(port), tls: ca ?? true }));
  }
  if (env.BENCH_AUDIT_WEBHOOK)
    sinks.push(
      new WebhookAuditSink({
        url: env.BENCH_AUDIT_WEBHOOK,
        secret: env.BENCH_AUDIT_WEBHOOK_SECRET ?? '',
        ...(ca && { tls: ca }),
      }),
    );
  return sinks;
}

async function bootstrap(): Promise<void> {
  const app = await NestFactory.create(
    BenchModule.register({
      secure: process.env.BENCH_SECURE === '1',
      auditFile: process.env.BENCH_AUDIT_FILE || undefined,
      auditForward: auditForward(),
      upstreamUrl: process.env.BENCH_UPSTREAM_URL || undefined,
      upstreamProtocol: (process.env.BENCH_UPSTREAM_PROTOCOL || undefined) as BenchVariant['upstreamProtocol'],
      stateful: process.env.BENCH_STATEFUL === '1',
      maxSessions: process.env.BENCH_MAX_SESSIONS ? Number(process.env.BENCH_MAX_SESSIONS) : undefined,
      redisUrl: process.env.BENCH_REDIS_URL || undefined,
      replica: process.env.BENCH_REPLICA || undefined,
      policies: process.env.BENCH_POLICIES ? Number(process.env.BENCH_POLICIES) : undefined,
      policiesOnCaller: process.env.BENCH_POLICIES_ON === 'caller',
      guardrails: process.env.BENCH_GUARDRAILS === '1',
    }),
    { logger: ['error', 'warn'] },
  );
  app.enableShutdownHooks();
  const port = Number(process.env.PORT ?? 3002);
  await app.listen(port, '127.0.0.1');
  console.log(`bench host on http://127.0.0.1:${port}/mcp`);
  reportMemoryOnSignal();
}

/**
 * For the memory benchmarks (test/bench/sessions-memory.mjs): on SIGWINCH (Nest's shutdown hooks take SIGUSR2), a full collection (when
 * node runs with --expose-gc) and then `MEMORY {…}` on stdout, the heap and the resident set.
 */
function reportMemoryOnSignal(): void {
  process.on('SIGWINCH', () => {
    (globalThis as { gc?: () => void }).gc?.();
    const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
    console.log(`MEMORY ${JSON.stringify({ rss, heapUsed, external, arrayBuffers })}`);
  });
}
void bootstrap();
