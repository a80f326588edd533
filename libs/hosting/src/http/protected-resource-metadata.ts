import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpOAuthAuth } from '#libs/security';

/** RFC 9728's well-known path: the metadata of a resource at the root, and the prefix of every other's. */
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** Where RFC 9728 puts the metadata of `resource`: the well-known prefix before its path. */
export function protectedResourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  return `${url.origin}${PROTECTED_RESOURCE_METADATA_PATH}${url.pathname === '/' ? '' : url.pathname}`;
}

/** Whether a request path asks for protected resource metadata. */
export function isProtectedResourceMetadataPath(path: string): boolean {
  return path === PROTECTED_RESOURCE_METADATA_PATH || path.startsWith(`${PROTECTED_RESOURCE_METADATA_PATH}/`);
}

/** Answers the RFC 9728 protected resource metadata document. */
export function serveProtectedResourceMetadata(req: IncomingMessage, res: ServerResponse, auth: McpOAuthAuth): void {
  if (req.method !== 'GET') {
    res.writeHead(405, { allow: 'GET' }).end();
    return;
  }
  const body = JSON.stringify({
    resource: auth.resource,
    authorization_servers: [auth.issuer],
    bearer_methods_supported: ['header'],
    ...(auth.scopesSupported && { scopes_supported: auth.scopesSupported }),
  });
  res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' }).end(body);
}
