// First: registers the OpenTelemetry SDK when OTEL_* variables ask for it.
import './tracing';
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { NestFactory } from '@nestjs/core';
import { RedactingConsoleLogger } from 'nest-mcp-host';
import { AppModule } from './app.module';
import { LOG_LEVELS, validateEnvironment, type HostEnvironment } from './host.config';
import { setupDeskApiDocs } from './support/rest/desk-api.document';

/** The support desk over Streamable HTTP: `npm start` (HOST, PORT override the address). */
async function bootstrap(): Promise<void> {
  const { LOG_LEVEL } = validateEnvironment(process.env);
  const app = await NestFactory.create(AppModule.register({ transport: 'http' }), {
    logger: new RedactingConsoleLogger({ logLevels: [...LOG_LEVELS[LOG_LEVEL]] }),
  });
  app.enableShutdownHooks();
  // The REST API's Swagger UI (/docs) and OpenAPI document (/docs-json), on the HTTP transport only.
  setupDeskApiDocs(app);
  const config = app.get<ConfigService<HostEnvironment, true>>(ConfigService);
  await app.listen(config.get('PORT'), config.get('HOST'));
  const url = (await app.getUrl()).replace('[::1]', 'localhost');
  new Logger('SupportDesk').log(
    `MCP endpoint: ${url}/mcp — REST API: ${url}/api (Swagger UI: ${url}/docs) — health: ${url}/health/ready — admin dashboard: ${url}/admin`,
  );
}
void bootstrap();
