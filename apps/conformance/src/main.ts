import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { ConformanceModule } from './conformance.module';

async function bootstrap(): Promise<void> {
  const app = await NestFactory.create(ConformanceModule, { logger: ['error', 'warn'] });
  app.enableShutdownHooks();
  const port = Number(process.env.PORT) || 3001;
  await app.listen(port, '127.0.0.1');
  console.log(`conformance fixtures on http://127.0.0.1:${port}/mcp`);
}
void bootstrap();
