import { randomBytes, randomUUID } from 'node:crypto';
import { keyDigest, sameDigest, storedDigest } from '#libs/security';
import type { AuthorizationServerOptions } from '../options/authorization-server.options';
import type { AuthorizationServerStore } from '../state/authorization-server.store';
import { OAuthError } from '../errors/oauth-error';
import { guardedFetchJson, GuardedFetchError } from './guarded-fetch';
import type { OAuthClient } from './oauth-client';
import { redirectUriProblem } from '../client-rules/redirect-uris';
import { readRegistration } from './registration-metadata';
import { CLIENT_PREFIX, RegistrationQuota } from './registration-quota';

/** A registration in use has its expiry moved on by a token issued at most this often (a write per client a day, not per token). */
const TOUCH_EVERY_MS = 86_400_000;

interface StoredClient {
  clientId: string;
  redirectUris: string[];
  secretDigest?: string;
  name?: string;
  /** When a token was last issued to it (ms since the epoch); absent until the first. */
  usedAt?: number;
}

/**
 * The clients the authorization server knows: pre-registered ones (options), those registered by
 * RFC 7591 (bounded by `RegistrationQuota`; an unused one is forgotten after `unusedTtlSec`, one in
 * use `idleTtlSec` after its last token), and those whose `client_id` is the HTTPS URL of their
 * Client ID Metadata Document (from a trusted host, fetched with SSRF guards, checked, cached in
 * the store so every replica reads it once). All of it lives in the store: a store that outlives
 * the process keeps the registrations across a restart.
 */
export class ClientRegistry {
  private readonly preRegistered: ReadonlyMap<string, OAuthClient>;
  private readonly quota: RegistrationQuota | undefined;

  constructor(
    private readonly options: AuthorizationServerOptions,
    private readonly store: AuthorizationServerStore,
  ) {
    this.quota = options.dynamicRegistration ? new RegistrationQuota(options.dynamicRegistration, store) : undefined;
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
    const stored = await this.store.get(`${CLIENT_PREFIX}${clientId}`);
    if (!stored)
      // The SDK clients drop a saved registration on `invalid_client` from the token endpoint and
      // register again; a person who meets it on the authorization page is told what to do.
      throw new OAuthError(
        'invalid_client',
        `the client "${clientId}" is not registered here (a registration left unused expires, and one made ` +
          "before the server's state was reset is gone): the application must register again — remove its saved " +
          'sign-in for this server (MCP Inspector: "Clear OAuth State") and connect again',
        401,
      );
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

  /**
   * Counts a registration from `address` (before its body is read): every replica counts together.
   * @throws OAuthError `too_many_requests` past `dynamicRegistration.perAddress`
   */
  async admit(address: string | undefined): Promise<void> {
    await this.quota?.admit(address);
  }

  /**
   * RFC 7591 registration: a new client id, and a secret unless the client asked to be public. The
   * registration lives `unusedTtlSec` until a token is issued to it (`used`).
   * @throws OAuthError `invalid_redirect_uri` or `invalid_client_metadata` naming the field;
   *   `temporarily_unavailable` when `maxClients` are kept
   */
  async register(metadata: Record<string, unknown>): Promise<Record<string, unknown>> {
    const limits = this.options.dynamicRegistration;
    if (!limits || !this.quota)
      throw new OAuthError(
        'invalid_request',
        'dynamic client registration is off: use a client ID metadata document',
        403,
      );
    const { redirectUris, method, name } = readRegistration(metadata);
    await this.quota.ensureRoom();
    const clientId = randomUUID();
    const secret = method === 'none' ? undefined : randomBytes(32).toString('base64url');
    const stored: StoredClient = {
      clientId,
      redirectUris,
      ...(secret && { secretDigest: keyDigest(secret).toString('hex') }),
      ...(name && { name }),
    };
    await this.store.put(`${CLIENT_PREFIX}${clientId}`, JSON.stringify(stored), limits.unusedTtlSec * 1000);
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

  /**
   * A token was issued to `client`: a registered one is kept `idleTtlSec` from now (written at most
   * once a day; the expiry then counts from that write plus a day, so it never falls short).
   */
  async used(client: OAuthClient): Promise<void> {
    const limits = this.options.dynamicRegistration;
    if (client.kind !== 'registered' || !limits) return;
    const key = `${CLIENT_PREFIX}${client.clientId}`;
    const text = await this.store.get(key);
    if (!text) return;
    const stored = JSON.parse(text) as StoredClient;
    const now = Date.now();
    if (stored.usedAt !== undefined && now - stored.usedAt < TOUCH_EVERY_MS) return;
    await this.store.put(key, JSON.stringify({ ...stored, usedAt: now }), limits.idleTtlSec * 1000 + TOUCH_EVERY_MS);
  }

  private async fromDocument(clientId: string): Promise<OAuthClient> {
    const documents = this.options.clientMetadataDocuments;
    if (!documents) throw new OAuthError('invalid_client', 'client ID metadata documents are not accepted here', 401);
    const url = new URL(clientId);
    // The trust policy first: a document from a host not listed is neither fetched nor read from the cache.
    if (documents.trustedHosts && !documents.trustedHosts.trusts(url))
      throw new OAuthError(
        'invalid_client',
        `client metadata documents from ${url.hostname} are not accepted here (clientMetadataDocuments.trustedHosts)`,
        401,
      );
    const cached = await this.store.get(`cimd:${clientId}`);
    let document: Record<string, unknown>;
    if (cached) document = JSON.parse(cached) as Record<string, unknown>;
    else {
      if (url.pathname === '/' || clientId.includes('#'))
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
      if (!Array.isArray(document.redirect_uris) || document.redirect_uris.length === 0)
        throw new OAuthError('invalid_client', 'the metadata document lists no redirect_uris', 401);
      document.redirect_uris.forEach((uri: unknown, index) => {
        const problem = redirectUriProblem(uri);
        if (problem)
          throw new OAuthError(
            'invalid_client',
            `the metadata document's redirect_uris[${index}] ${JSON.stringify(uri)} ${problem}`,
            401,
          );
      });
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
