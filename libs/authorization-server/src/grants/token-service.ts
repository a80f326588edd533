import { hash, randomBytes, randomUUID } from 'node:crypto';
import type { AuthorizationServerOptions } from '../options/authorization-server.options';
import type { AuthorizationServerStore } from '../state/authorization-server.store';
import type { SigningKeys } from '../keys/signing-keys';
import type { OAuthClient } from '../clients/oauth-client';
import { OAuthError } from '../errors/oauth-error';

/** Who a grant is for, with the host's scopes and roles already worked out. */
export interface GrantSubject {
  /** The host's id for the person (the tokens' `sub`): their IdP's `sub`, namespaced for another issuer's people. */
  sub: string;
  scopes: string[];
  roles: string[];
  /** The IdP that vouched for the person. */
  idp: string;
  /** The person's `sub` at that IdP. */
  idpSub: string;
  name?: string;
  email?: string;
}

/** A sign-in as the admin API lists it: one person on one client, kept alive by refresh tokens. */
export interface McpOAuthGrant {
  id: string;
  subject: string;
  /** The IdP that vouched for the person. */
  issuer: string;
  clientId: string;
  scopes: string[];
  roles: string[];
  via: 'authorization_code';
  createdAt: string;
  /** When the sign-in ends unless refreshed before (never after `endsAt`). */
  expiresAt: string;
  /** When it ends however often it is refreshed (`maxSignInSec` after the sign-in). */
  endsAt: string;
  lastRefreshedAt: string | null;
}

/** A sign-in as the store keeps it. */
export interface SignIn extends GrantSubject {
  id: string;
  clientId: string;
  createdAt: number;
  /** `maxSignInSec` after the sign-in: no refresh goes past it. */
  endsAt: number;
  lastRefreshedAt: number | null;
  /** The scopes the client asked for (`null`: none named): every refresh narrows to them again. */
  asked: string[] | null;
  /** The IdP's tokens for the person, sealed: each refresh checks the person with them. */
  idpSession?: string;
  /** Digest of the one refresh token that is valid now. */
  current: string;
}

/**
 * What a refresh learns of the person at their IdP: their scopes and roles now (and the IdP's
 * tokens, renewed), or that the IdP refused (the sign-in ends), or that it could not be asked
 * (the refresh is refused, the sign-in kept).
 */
export type Recheck =
  | { ok: true; subject: GrantSubject; idpSession?: string }
  | { ok: false; refused: string }
  | { ok: false; unavailable: string };

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
 * revokes the whole sign-in, RFC 9700 §4.14), and their revocation per person or per client. A
 * refresh token lives `refreshTokenTtlSec` unused; a sign-in ends `maxSignInSec` after it began.
 */
export class TokenService {
  constructor(
    private readonly options: AuthorizationServerOptions,
    private readonly store: AuthorizationServerStore,
    private readonly keys: SigningKeys,
  ) {}

  /** An access token alone (the JWT bearer grant: no sign-in is kept). */
  issue(client: OAuthClient, subject: GrantSubject): Promise<TokenResponse> {
    return this.accessToken(client.clientId, subject);
  }

  /** Tokens for a new sign-in (the authorization code grant): an access token and a refresh token. */
  async signIn(
    client: OAuthClient,
    subject: GrantSubject,
    kept: Pick<SignIn, 'asked' | 'idpSession'>,
  ): Promise<TokenResponse> {
    const tokens = await this.accessToken(client.clientId, subject);
    const now = Date.now();
    const refreshToken = randomBytes(32).toString('base64url');
    const grant: SignIn = {
      ...subject,
      ...kept,
      id: randomUUID(),
      clientId: client.clientId,
      createdAt: now,
      endsAt: now + this.options.maxSignInSec * 1000,
      lastRefreshedAt: null,
      current: digest(refreshToken),
    };
    await this.saveGrant(grant);
    return { ...tokens, refresh_token: refreshToken };
  }

  /**
   * The refresh token grant: the person is checked again (`recheck`, at their IdP), then a new
   * access token and a new refresh token; the one presented is spent.
   */
  async refresh(
    client: OAuthClient,
    refreshToken: string | null,
    recheck: (grant: Readonly<SignIn>) => Promise<Recheck>,
  ): Promise<{ tokens: TokenResponse; subject: string; grant: SignIn }> {
    if (!refreshToken) throw new OAuthError('invalid_request', 'refresh_token is required');
    const spent = digest(refreshToken);
    const grantId = await this.store.take(`refresh:${spent}`);
    if (!grantId) {
      const reused = await this.store.get(`used:${spent}`);
      if (reused) {
        const ended = await this.revokeGrant(reused);
        const refusal = new OAuthError('invalid_grant', 'the refresh token was already used: the sign-in is revoked');
        throw ended ? refusal.about(ended.sub) : refusal;
      }
      throw new OAuthError('invalid_grant', 'the refresh token is unknown, expired or revoked');
    }
    const grant = await this.grant(grantId);
    if (!grant || grant.current !== spent) throw new OAuthError('invalid_grant', 'the refresh token was revoked');
    if (grant.clientId !== client.clientId)
      throw new OAuthError('invalid_grant', 'the refresh token was issued to another client').about(grant.sub);
    const now = await recheck(grant);
    if (!now.ok && 'unavailable' in now) {
      // Not spent after all: the client may try again once the IdP answers.
      await this.store.put(`refresh:${spent}`, grant.id, this.ttlOf(grant));
      throw new OAuthError(
        'temporarily_unavailable',
        `the identity provider could not check the sign-in; try again (${now.unavailable})`,
        503,
      ).about(grant.sub);
    }
    if (!now.ok) {
      await this.revokeGrant(grant.id);
      throw new OAuthError(
        'invalid_grant',
        `the identity provider no longer accepts this sign-in (${now.refused}): it is ended; sign in again`,
      ).about(grant.sub);
    }
    const next = randomBytes(32).toString('base64url');
    const renewed: SignIn = {
      ...grant,
      ...now.subject,
      ...(now.idpSession !== undefined && { idpSession: now.idpSession }),
      current: digest(next),
      lastRefreshedAt: Date.now(),
    };
    await this.store.put(`used:${spent}`, grant.id, grant.endsAt - Date.now());
    await this.saveGrant(renewed);
    return {
      tokens: { ...(await this.accessToken(grant.clientId, renewed)), refresh_token: next },
      subject: grant.sub,
      grant: renewed,
    };
  }

  /** RFC 7009: a refresh token presented by its client ends its sign-in; anything else is ignored. */
  async revokeToken(client: OAuthClient, token: string | null): Promise<string | undefined> {
    if (!token) throw new OAuthError('invalid_request', 'token is required');
    const grantId = await this.store.get(`refresh:${digest(token)}`);
    if (!grantId) return undefined;
    const grant = await this.grant(grantId);
    if (grant?.clientId !== client.clientId) return undefined;
    await this.revokeGrant(grantId);
    return grant.sub;
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
        issuer: grant.idp,
        clientId: grant.clientId,
        scopes: grant.scopes,
        roles: grant.roles,
        via: 'authorization_code',
        createdAt: new Date(grant.createdAt).toISOString(),
        expiresAt: new Date(Date.now() + this.ttlOf(grant)).toISOString(),
        endsAt: new Date(grant.endsAt).toISOString(),
        lastRefreshedAt: grant.lastRefreshedAt === null ? null : new Date(grant.lastRefreshedAt).toISOString(),
      }));
  }

  private async grant(grantId: string): Promise<SignIn | undefined> {
    const stored = await this.store.get(`grant:${grantId}`);
    return stored ? signInOf(stored) : undefined;
  }

  private async allGrants(): Promise<SignIn[]> {
    return (await this.store.list('grant:')).map(([, value]) => signInOf(value));
  }

  /** A refresh token (and its sign-in's record) lives `refreshTokenTtlSec` unused, never past the sign-in's end. */
  private ttlOf(grant: Pick<SignIn, 'endsAt' | 'lastRefreshedAt' | 'createdAt'>): number {
    const from = grant.lastRefreshedAt ?? grant.createdAt;
    return Math.max(1, Math.min(from + this.options.refreshTokenTtlSec * 1000, grant.endsAt) - Date.now());
  }

  private async saveGrant(grant: SignIn): Promise<void> {
    const ttl = this.ttlOf(grant);
    await this.store.put(`grant:${grant.id}`, JSON.stringify(grant), ttl);
    await this.store.put(`refresh:${grant.current}`, grant.id, ttl);
  }

  private async revokeGrant(grantId: string): Promise<SignIn | undefined> {
    const stored = await this.store.take(`grant:${grantId}`);
    if (!stored) return undefined;
    const grant = signInOf(stored);
    await this.store.delete(`refresh:${grant.current}`);
    return grant;
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

/**
 * A sign-in as stored; one stored before sign-ins had an end of their own and the IdP's subject
 * (a persistent store kept across the upgrade) ends when its refresh tokens did, and its first
 * refresh ends it (it holds no IdP token to check the person with).
 */
function signInOf(stored: string): SignIn {
  const grant = JSON.parse(stored) as SignIn & { expiresAt?: number };
  return { ...grant, endsAt: grant.endsAt ?? grant.expiresAt ?? grant.createdAt, idpSub: grant.idpSub ?? grant.sub };
}
