// First: registers the OpenTelemetry SDK when OTEL_* variables ask for it.
import './tracing';
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { StderrConsoleLogger } from '#libs/hosting';
import { AppModule } from './app.module';

/** The support desk over stdio (`npm run start:stdio`): protocol on stdout, logs on stderr. */
async function bootstrap(): Promise<void> {
  const app = await NestFactory.createApplicationContext(AppModule.register({ transport: 'stdio' }), {
    logger: new StderrConsoleLogger({ logLevels: ['error', 'warn', 'log'] }),
  });
  app.enableShutdownHooks();
  process.stdin.once('end', () => void app.close());
}
void bootstrap();
