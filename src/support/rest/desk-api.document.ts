import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import { SupportModule } from '../support.module';
import { API_KEY_SCHEME, BEARER_SCHEME } from './desk-api.decorator';

/** Where the Swagger UI is served; the document is at `/<path>-json`. */
export const DESK_API_DOCS_PATH = 'docs';

/**
 * The OpenAPI document of the desk's REST API: the routes of `SupportModule` only, so neither
 * the MCP endpoint nor health, metrics or the admin API appear in it.
 */
export function deskApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setTitle('ACME Support Desk API')
    .setDescription(
      'Tickets and customers of the support desk. Authenticate as on the MCP endpoint: ' +
        '`X-API-Key: <key>` or `Authorization: Bearer <key or token>`; each route needs the scopes its MCP tool needs.',
    )
    .setVersion('1.0.0')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key' }, API_KEY_SCHEME)
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'An API key or an OAuth access token.' },
      BEARER_SCHEME,
    )
    .build();
  return SwaggerModule.createDocument(app, config, { include: [SupportModule] });
}

/**
 * Serves the Swagger UI at `/docs` and the document at `/docs-json` (call before `listen`). On
 * Fastify (`ui: false`) the document only: its UI's static files need `@fastify/static`.
 */
export function setupDeskApiDocs(app: INestApplication, { ui = true }: { ui?: boolean } = {}): void {
  SwaggerModule.setup(DESK_API_DOCS_PATH, app, () => deskApiDocument(app), { ui, raw: ['json'] });
}
