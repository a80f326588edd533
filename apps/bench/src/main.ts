import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { BenchModule, type BenchVariant } from './bench.module';

async function bootstrap(): Promise<void> {
  const app = await NestFactory.create(
    BenchModule.register({
      secure: process.env.BENCH_SECURE === '1',
      auditFile: process.env.BENCH_AUDIT_FILE || undefined,
      upstreamUrl: process.env.BENCH_UPSTREAM_URL || undefined,
      upstreamProtocol: (process.env.BENCH_UPSTREAM_PROTOCOL || undefined) as BenchVariant['upstreamProtocol'],
      stateful: process.env.BENCH_STATEFUL === '1',
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
}
void bootstrap();
