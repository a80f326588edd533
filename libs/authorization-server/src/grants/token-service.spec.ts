import { InMemoryAuthorizationServerStore } from '../state/in-memory-authorization-server.store';
import { SigningKeys } from '../keys/signing-keys';
import type { AuthorizationServerOptions } from '../options/authorization-server.options';
import type { OAuthClient } from '../clients/oauth-client';
import { TokenService, type GrantSubject, type Recheck } from './token-service';

const DAY_MS = 86_400_000;
const CLIENT: OAuthClient = { clientId: 'desk', redirectUris: [], kind: 'registered' };
const ALICE: GrantSubject = { sub: 'alice', scopes: ['tickets:read'], roles: [], idp: 'https://idp', idpSub: 'alice' };
const OPTIONS = {
  issuer: 'https://as.example',
  resource: 'https://as.example/mcp',
  accessTokenTtlSec: 300,
  refreshTokenTtlSec: 86_400,
  maxSignInSec: 3 * 86_400,
} as AuthorizationServerOptions;

describe('TokenService', () => {
  let now: number;
  let keys: SigningKeys;
  let tokens: TokenService;
  const still = (): Promise<Recheck> => Promise.resolve({ ok: true, subject: ALICE });

  beforeEach(async () => {
    const store = new InMemoryAuthorizationServerStore();
    keys = new SigningKeys(store, 300);
    await keys.start();
    tokens = new TokenService(OPTIONS, store, keys);
    now = Date.now();
    jest.spyOn(Date, 'now').mockImplementation(() => now);
  });
  afterEach(() => jest.restoreAllMocks());

  it('ends a sign-in maxSignInSec after it began, however often it is refreshed before', async () => {
    let refreshToken = (await tokens.signIn(CLIENT, ALICE, { asked: null })).refresh_token!;
    for (let day = 1; day <= 3; day++) {
      now += DAY_MS - 60_000;
      refreshToken = (await tokens.refresh(CLIENT, refreshToken, still)).tokens.refresh_token!;
    }
    // Refreshed three minutes before the sign-in's end: its new refresh token lives those three minutes.
    const endsAt = new Date(now + 3 * 60_000).toISOString();
    expect(await tokens.grants()).toEqual([expect.objectContaining({ endsAt, expiresAt: endsAt })]);
    now += 5 * 60_000;
    await expect(tokens.refresh(CLIENT, refreshToken, still)).rejects.toMatchObject({
      error: 'invalid_grant',
      description: 'the refresh token is unknown, expired or revoked',
    });
    expect(await tokens.grants()).toEqual([]);
  });

  it('lets a refresh token unused for refreshTokenTtlSec expire', async () => {
    const { refresh_token: refreshToken } = await tokens.signIn(CLIENT, ALICE, { asked: null });
    now += DAY_MS + 1000;
    await expect(tokens.refresh(CLIENT, refreshToken!, still)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it("ends the sign-in when the person's IdP refuses it, and keeps it when the IdP cannot be asked", async () => {
    const { refresh_token: refreshToken } = await tokens.signIn(CLIENT, ALICE, { asked: null });
    await expect(
      tokens.refresh(CLIENT, refreshToken!, () => Promise.resolve({ ok: false, unavailable: 'connect ECONNREFUSED' })),
    ).rejects.toMatchObject({ error: 'temporarily_unavailable', status: 503, subject: 'alice' });
    await expect(
      tokens.refresh(CLIENT, refreshToken!, () => Promise.resolve({ ok: false, refused: 'invalid_grant' })),
    ).rejects.toMatchObject({ error: 'invalid_grant', subject: 'alice' });
    expect(await tokens.grants()).toEqual([]);
  });
});
