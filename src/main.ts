// First: registers the OpenTelemetry SDK when OTEL_* variables ask for it.
import './tracing';
import 'reflect-metadata';
import { Logger, type INestApplication } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { NestFactory, type AbstractHttpAdapter } from '@nestjs/core';
import { RedactingConsoleLogger } from 'nest-mcp-host';
import { AppModule } from './app.module';
import { LOG_LEVELS, validateEnvironment, type HostEnvironment } from './host.config';
import { setupDeskApiDocs } from './support/rest/desk-api.document';

/** The support desk over Streamable HTTP: `npm start` (HOST, PORT override the address). */
async function bootstrap(): Promise<void> {
  const { LOG_LEVEL, HTTP_PLATFORM } = validateEnvironment(process.env);
  const logger = new RedactingConsoleLogger({ logLevels: [...LOG_LEVELS[LOG_LEVEL]] });
  const module = AppModule.register({ transport: 'http' });
  // HTTP_PLATFORM=fastify: the same desk on Fastify (Fastify's package is loaded only then).
  const app =
    HTTP_PLATFORM === 'fastify'
      ? await NestFactory.create<INestApplication>(module, await fastifyAdapter(), { logger })
      : await NestFactory.create(module, { logger });
  app.enableShutdownHooks();
  // The REST API's Swagger UI (/docs; Express only) and OpenAPI document (/docs-json).
  setupDeskApiDocs(app, { ui: HTTP_PLATFORM === 'express' });
  const config = app.get<ConfigService<HostEnvironment, true>>(ConfigService);
  await app.listen(config.get('PORT'), config.get('HOST'));
  const url = (await app.getUrl()).replace('[::1]', 'localhost');
  new Logger('SupportDesk').log(
    `MCP endpoint: ${url}/mcp — REST API: ${url}/api (Swagger UI: ${url}/docs) — health: ${url}/health/ready — admin dashboard: ${url}/admin`,
  );
}
/** Fastify's adapter, from the optional `@nestjs/platform-fastify`. */
async function fastifyAdapter(): Promise<AbstractHttpAdapter> {
  const { FastifyAdapter } = await import('@nestjs/platform-fastify');
  return new FastifyAdapter();
}

void bootstrap();
