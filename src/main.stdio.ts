// First: registers the OpenTelemetry SDK when OTEL_* variables ask for it.
import './tracing';
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { StderrConsoleLogger } from 'nest-mcp-host';
import { AppModule } from './app.module';
import { LOG_LEVELS, validateEnvironment } from './host.config';

/** The support desk over stdio (`npm run start:stdio`): protocol on stdout, logs on stderr. */
async function bootstrap(): Promise<void> {
  const app = await NestFactory.createApplicationContext(AppModule.register({ transport: 'stdio' }), {
    logger: new StderrConsoleLogger({ logLevels: [...LOG_LEVELS[validateEnvironment(process.env).LOG_LEVEL]] }),
  });
  app.enableShutdownHooks();
  process.stdin.once('end', () => void app.close());
}
void bootstrap();
