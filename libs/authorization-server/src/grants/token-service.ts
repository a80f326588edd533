import { hash, randomBytes, randomUUID } from 'node:crypto';
import type { AuthorizationServerOptions } from '../options/authorization-server.options';
import type { AuthorizationServerStore } from '../state/authorization-server.store';
import type { SigningKeys } from '../keys/signing-keys';
import type { OAuthClient } from '../clients/oauth-client';
import { OAuthError } from '../errors/oauth-error';

/** Who a grant is for, with the host's scopes and roles already worked out. */
export interface GrantSubject {
  sub: string;
  scopes: string[];
  roles: string[];
  /** The IdP that vouched for the person. */
  idp: string;
  name?: string;
  email?: string;
}

/** A sign-in as the admin API lists it: one person on one client, kept alive by refresh tokens. */
export interface McpOAuthGrant {
  id: string;
  subject: string;
  clientId: string;
  scopes: string[];
  roles: string[];
  via: 'authorization_code';
  createdAt: string;
  expiresAt: string;
  lastRefreshedAt: string | null;
}

interface StoredGrant extends GrantSubject {
  id: string;
  clientId: string;
  createdAt: number;
  expiresAt: number;
  lastRefreshedAt: number | null;
  /** Digest of the one refresh token that is valid now. */
  current: string;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope?: string;
  refresh_token?: string;
}

const digest = (token: string) => hash('sha256', token, 'hex');

/**
 * Access tokens (JWTs for `auth.resource`, signed by the current key, short-lived) and refresh
 * tokens (opaque, single use: each refresh returns a new one, and presenting a spent one again
 * revokes the whole sign-in, RFC 9700 §4.14), and their revocation per person or per client.
 */
export class TokenService {
  constructor(
    private readonly options: AuthorizationServerOptions,
    private readonly store: AuthorizationServerStore,
    private readonly keys: SigningKeys,
  ) {}

  /** Tokens for a new sign-in; with a refresh token when `refresh` (the authorization code grant). */
  async issue(client: OAuthClient, subject: GrantSubject, refresh: boolean): Promise<TokenResponse> {
    const tokens = await this.accessToken(client.clientId, subject);
    if (!refresh) return tokens;
    const now = Date.now();
    const refreshToken = randomBytes(32).toString('base64url');
    const grant: StoredGrant = {
      ...subject,
      id: randomUUID(),
      clientId: client.clientId,
      createdAt: now,
      expiresAt: now + this.options.refreshTokenTtlSec * 1000,
      lastRefreshedAt: null,
      current: digest(refreshToken),
    };
    await this.saveGrant(grant);
    return { ...tokens, refresh_token: refreshToken };
  }

  /** The refresh token grant: a new access token and a new refresh token; the one presented is spent. */
  async refresh(client: OAuthClient, refreshToken: string | null): Promise<{ tokens: TokenResponse; subject: string }> {
    if (!refreshToken) throw new OAuthError('invalid_request', 'refresh_token is required');
    const spent = digest(refreshToken);
    const grantId = await this.store.take(`refresh:${spent}`);
    if (!grantId) {
      const reused = await this.store.get(`used:${spent}`);
      if (reused) {
        await this.revokeGrant(reused);
        throw new OAuthError('invalid_grant', 'the refresh token was already used: the sign-in is revoked');
      }
      throw new OAuthError('invalid_grant', 'the refresh token is unknown, expired or revoked');
    }
    const stored = await this.store.get(`grant:${grantId}`);
    const grant = stored ? (JSON.parse(stored) as StoredGrant) : undefined;
    if (!grant || grant.current !== spent) throw new OAuthError('invalid_grant', 'the refresh token was revoked');
    if (grant.clientId !== client.clientId)
      throw new OAuthError('invalid_grant', 'the refresh token was issued to another client');
    const next = randomBytes(32).toString('base64url');
    const ttl = grant.expiresAt - Date.now();
    await this.store.put(`used:${spent}`, grant.id, ttl);
    await this.saveGrant({ ...grant, current: digest(next), lastRefreshedAt: Date.now() });
    return { tokens: { ...(await this.accessToken(grant.clientId, grant)), refresh_token: next }, subject: grant.sub };
  }

  /** RFC 7009: a refresh token presented by its client ends its sign-in; anything else is ignored. */
  async revokeToken(client: OAuthClient, token: string | null): Promise<void> {
    if (!token) throw new OAuthError('invalid_request', 'token is required');
    const grantId = await this.store.get(`refresh:${digest(token)}`);
    if (!grantId) return;
    const stored = await this.store.get(`grant:${grantId}`);
    if (stored && (JSON.parse(stored) as StoredGrant).clientId === client.clientId) await this.revokeGrant(grantId);
  }

  /** Ends the sign-ins of a person, of a client, or one sign-in; returns how many. */
  async revoke(filter: { subject?: string; clientId?: string; grantId?: string }): Promise<number> {
    const grants = await this.allGrants();
    const matching = grants.filter(
      (grant) =>
        (filter.subject === undefined || grant.sub === filter.subject) &&
        (filter.clientId === undefined || grant.clientId === filter.clientId) &&
        (filter.grantId === undefined || grant.id === filter.grantId),
    );
    for (const grant of matching) await this.revokeGrant(grant.id);
    return matching.length;
  }

  async grants(): Promise<McpOAuthGrant[]> {
    return (await this.allGrants())
      .sort((a, b) => b.createdAt - a.createdAt)
      .map((grant) => ({
        id: grant.id,
        subject: grant.sub,
        clientId: grant.clientId,
        scopes: grant.scopes,
        roles: grant.roles,
        via: 'authorization_code',
        createdAt: new Date(grant.createdAt).toISOString(),
        expiresAt: new Date(grant.expiresAt).toISOString(),
        lastRefreshedAt: grant.lastRefreshedAt === null ? null : new Date(grant.lastRefreshedAt).toISOString(),
      }));
  }

  private async allGrants(): Promise<StoredGrant[]> {
    return (await this.store.list('grant:')).map(([, value]) => JSON.parse(value) as StoredGrant);
  }

  private async saveGrant(grant: StoredGrant): Promise<void> {
    const ttl = grant.expiresAt - Date.now();
    await this.store.put(`grant:${grant.id}`, JSON.stringify(grant), ttl);
    await this.store.put(`refresh:${grant.current}`, grant.id, ttl);
  }

  private async revokeGrant(grantId: string): Promise<void> {
    const stored = await this.store.take(`grant:${grantId}`);
    if (stored) await this.store.delete(`refresh:${(JSON.parse(stored) as StoredGrant).current}`);
  }

  /**
   * RFC 8693 token exchange at the facade, for the host itself: a token for `audience` (a
   * downstream the host calls) with the caller as subject and the host as actor (`act`), signed
   * with the facade's keys. Never the caller's own token: the downstream sees a token made for it.
   */
  async exchange(
    subject: Pick<GrantSubject, 'sub' | 'scopes' | 'roles'>,
    audience: string,
  ): Promise<{ accessToken: string; expiresIn: number; actor: string }> {
    const ttl = this.options.accessTokenTtlSec;
    const now = Math.floor(Date.now() / 1000);
    const actor = this.options.issuer;
    const accessToken = await this.keys.sign(
      {
        iss: this.options.issuer,
        sub: subject.sub,
        aud: audience,
        act: { sub: actor },
        client_id: actor,
        scope: subject.scopes.join(' '),
        roles: subject.roles,
        jti: randomUUID(),
        iat: now,
        exp: now + ttl,
      },
      { typ: 'at+jwt' },
    );
    return { accessToken, expiresIn: ttl, actor };
  }

  private async accessToken(clientId: string, subject: GrantSubject): Promise<TokenResponse> {
    const ttl = this.options.accessTokenTtlSec;
    const now = Math.floor(Date.now() / 1000);
    const token = await this.keys.sign(
      {
        iss: this.options.issuer,
        sub: subject.sub,
        aud: this.options.resource,
        client_id: clientId,
        scope: subject.scopes.join(' '),
        roles: subject.roles,
        idp: subject.idp,
        ...(subject.name && { name: subject.name }),
        ...(subject.email && { email: subject.email }),
        jti: randomUUID(),
        iat: now,
        exp: now + ttl,
      },
      { typ: 'at+jwt' },
    );
    return {
      access_token: token,
      token_type: 'Bearer',
      expires_in: ttl,
      ...(subject.scopes.length > 0 && { scope: subject.scopes.join(' ') }),
    };
  }
}
