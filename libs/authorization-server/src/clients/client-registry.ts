import { randomBytes, randomUUID } from 'node:crypto';
import { keyDigest, sameDigest, storedDigest } from '#libs/security';
import type { AuthorizationServerOptions } from '../options/authorization-server.options';
import type { AuthorizationServerStore } from '../state/authorization-server.store';
import { OAuthError } from '../errors/oauth-error';
import { guardedFetchJson, GuardedFetchError } from './guarded-fetch';
import type { OAuthClient } from './oauth-client';

const REGISTERED_TTL_MS = 365 * 86_400_000;

interface StoredClient {
  clientId: string;
  redirectUris: string[];
  secretDigest?: string;
  name?: string;
}

/**
 * The clients the authorization server knows: pre-registered ones (options), those registered by
 * RFC 7591, and those whose `client_id` is the HTTPS URL of their Client ID Metadata Document
 * (fetched with SSRF guards, checked, cached in the store so every replica reads it once).
 */
export class ClientRegistry {
  private readonly preRegistered: ReadonlyMap<string, OAuthClient>;

  constructor(
    private readonly options: AuthorizationServerOptions,
    private readonly store: AuthorizationServerStore,
  ) {
    this.preRegistered = new Map(
      options.clients.map((client) => [
        client.clientId,
        {
          clientId: client.clientId,
          redirectUris: client.redirectUris ?? [],
          ...(client.secretHash && { secretDigest: storedDigest(client.secretHash) }),
          ...(client.name && { name: client.name }),
          kind: 'pre-registered',
        },
      ]),
    );
  }

  /**
   * The client `clientId` names.
   * @throws OAuthError `invalid_client` when there is none, or its metadata document is refused
   */
  async find(clientId: string | undefined): Promise<OAuthClient> {
    if (!clientId) throw new OAuthError('invalid_request', 'client_id is required');
    const known = this.preRegistered.get(clientId);
    if (known) return known;
    if (/^https?:\/\//i.test(clientId)) return this.fromDocument(clientId);
    const stored = await this.store.get(`client:${clientId}`);
    if (!stored) throw new OAuthError('invalid_client', `unknown client "${clientId}"`, 401);
    const client = JSON.parse(stored) as StoredClient;
    return {
      clientId: client.clientId,
      redirectUris: client.redirectUris,
      ...(client.secretDigest && { secretDigest: Buffer.from(client.secretDigest, 'hex') }),
      ...(client.name && { name: client.name }),
      kind: 'registered',
    };
  }

  /**
   * The client of a token request, authenticated: HTTP Basic (`client_secret_basic`), the secret
   * in the form (`client_secret_post`), or none for a public client.
   * @throws OAuthError `invalid_client`
   */
  async authenticate(authorization: string | undefined, form: URLSearchParams): Promise<OAuthClient> {
    let clientId = form.get('client_id') ?? undefined;
    let secret = form.get('client_secret') ?? undefined;
    const basic = /^Basic\s+(\S+)$/i.exec(authorization ?? '');
    if (basic) {
      const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 0) throw new OAuthError('invalid_client', 'malformed Basic credentials', 401);
      clientId = decodeURIComponent(decoded.slice(0, colon));
      secret = decodeURIComponent(decoded.slice(colon + 1));
    }
    const client = await this.find(clientId);
    if (client.secretDigest) {
      if (!secret || !sameDigest(client.secretDigest, keyDigest(secret)))
        throw new OAuthError('invalid_client', 'client authentication failed', 401);
    } else if (secret) throw new OAuthError('invalid_client', 'a public client has no secret to send', 401);
    return client;
  }

  /** RFC 7591 registration: a new client id, and a secret unless the client asked to be public. */
  async register(metadata: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (!this.options.dynamicRegistration)
      throw new OAuthError(
        'invalid_request',
        'dynamic client registration is off: use a client ID metadata document',
        403,
      );
    const redirectUris = metadata.redirect_uris;
    if (!Array.isArray(redirectUris) || redirectUris.length === 0 || redirectUris.some((uri) => !validRedirect(uri)))
      throw new OAuthError('invalid_redirect_uri', 'redirect_uris must list https URLs, or http ones on loopback');
    const method = (metadata.token_endpoint_auth_method as string | undefined) ?? 'client_secret_basic';
    if (!['none', 'client_secret_basic', 'client_secret_post'].includes(method))
      throw new OAuthError('invalid_client_metadata', `token_endpoint_auth_method "${method}" is not supported`);
    const clientId = randomUUID();
    const secret = method === 'none' ? undefined : randomBytes(32).toString('base64url');
    const name = typeof metadata.client_name === 'string' ? metadata.client_name.slice(0, 200) : undefined;
    const stored: StoredClient = {
      clientId,
      redirectUris: redirectUris as string[],
      ...(secret && { secretDigest: keyDigest(secret).toString('hex') }),
      ...(name && { name }),
    };
    await this.store.put(`client:${clientId}`, JSON.stringify(stored), REGISTERED_TTL_MS);
    return {
      client_id: clientId,
      ...(secret && { client_secret: secret, client_secret_expires_at: 0 }),
      client_id_issued_at: Math.floor(Date.now() / 1000),
      redirect_uris: redirectUris,
      token_endpoint_auth_method: method,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...(name && { client_name: name }),
    };
  }

  private async fromDocument(clientId: string): Promise<OAuthClient> {
    const documents = this.options.clientMetadataDocuments;
    if (!documents) throw new OAuthError('invalid_client', 'client ID metadata documents are not accepted here', 401);
    const cached = await this.store.get(`cimd:${clientId}`);
    let document: Record<string, unknown>;
    if (cached) document = JSON.parse(cached) as Record<string, unknown>;
    else {
      const url = new URL(clientId);
      if (url.pathname === '/' || url.hash)
        throw new OAuthError('invalid_client', 'a client ID URL needs a path and no fragment', 401);
      let fetched: { body: unknown; maxAgeSec?: number };
      try {
        fetched = await guardedFetchJson(url, documents);
      } catch (error) {
        if (error instanceof GuardedFetchError)
          throw new OAuthError('invalid_client', `client metadata document refused: ${error.message}`, 401);
        throw error;
      }
      document = (fetched.body ?? {}) as Record<string, unknown>;
      if (document.client_id !== clientId)
        throw new OAuthError('invalid_client', 'the metadata document names another client_id than its URL', 401);
      if (!Array.isArray(document.redirect_uris) || document.redirect_uris.some((uri) => !validRedirect(uri)))
        throw new OAuthError('invalid_client', 'the metadata document has no valid redirect_uris', 401);
      const method = document.token_endpoint_auth_method ?? 'none';
      if (method !== 'none')
        throw new OAuthError(
          'invalid_client',
          `token_endpoint_auth_method "${String(method)}" is not supported for a metadata document`,
          401,
        );
      const ttlSec = Math.min(fetched.maxAgeSec ?? documents.cacheTtlSec, documents.cacheTtlSec, 86_400);
      if (ttlSec > 0) await this.store.put(`cimd:${clientId}`, JSON.stringify(document), ttlSec * 1000);
    }
    return {
      clientId,
      redirectUris: document.redirect_uris as string[],
      ...(typeof document.client_name === 'string' && { name: document.client_name }),
      kind: 'metadata-document',
    };
  }
}

function validRedirect(uri: unknown): boolean {
  if (typeof uri !== 'string' || !URL.canParse(uri)) return false;
  const url = new URL(uri);
  if (url.hash) return false;
  return (
    url.protocol === 'https:' ||
    (url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) ||
    !['http:', 'https:', 'javascript:', 'data:'].includes(url.protocol)
  );
}
