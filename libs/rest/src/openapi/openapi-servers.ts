import type { OpenApiDocument, OpenApiServer } from './openapi-document';

/** The server's URL with each `{variable}` replaced by its default. */
function expandServerUrl(server: OpenApiServer): string {
  return server.url.replace(/\{([^}]+)\}/g, (whole, name: string) => server.variables?.[name]?.default ?? whole);
}

/**
 * The path part of the document's first server URL, without a trailing `/`: what a request path
 * is prefixed with when the API is served below a base path. `''` when there is no server, or the
 * server is the root. Nothing is prefixed for you: pass it to `readOperations({ basePath })` or
 * `toRequestParts(…, basePath)`, whichever fits where the requests go.
 *
 * @example
 * ```ts
 * basePathOf({ openapi: '3.0.4', servers: [{ url: 'https://petstore3.swagger.io/api/v3' }] }); // '/api/v3'
 * basePathOf({ openapi: '3.1.0', servers: [{ url: '/v1/' }] }); // '/v1'
 * ```
 */
export function basePathOf(document: OpenApiDocument): string {
  const server = document.servers?.[0];
  if (!server || typeof server.url !== 'string') return '';
  const url = expandServerUrl(server);
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    // A relative server URL (`/api/v3`, `api/v3`): the path is the URL up to its query or fragment.
    path = `/${url.split(/[?#]/)[0].replace(/^\/+/, '')}`;
  }
  return path.replace(/\/+$/, '');
}

/**
 * The absolute URL of the document's first server (its variables at their defaults), a relative
 * one resolved against `documentUrl` (where the document was read from, as OpenAPI says);
 * `undefined` when there is no server, or a relative one and no `documentUrl`.
 *
 * @example
 * ```ts
 * serverUrlOf({ openapi: '3.1.0', servers: [{ url: '/v1' }] }, 'https://api.example.com/openapi.json');
 * // 'https://api.example.com/v1'
 * ```
 */
export function serverUrlOf(document: OpenApiDocument, documentUrl?: string): string | undefined {
  const server = document.servers?.[0];
  if (!server || typeof server.url !== 'string') return undefined;
  try {
    return new URL(expandServerUrl(server), documentUrl).href.replace(/\/+$/, '');
  } catch {
    return undefined;
  }
}
