import { IdpSessionSeal } from './idp-session-seal';
import { People } from './people';

describe('IdpSessionSeal', () => {
  const idp = { issuer: 'https://login.corp.example', clientId: 'desk', clientSecret: 'secret-1', scopes: ['openid'] };
  const people = new People({ idp, trustedIdps: [] });
  const alice = people.of(idp.issuer, 'alice');
  const session = { accessToken: 'idp-access-token', refreshToken: 'idp-refresh-token' };

  it("keeps the IdP's tokens out of the store's text, and opens them for the person they were sealed for", () => {
    const sealed = new IdpSessionSeal(idp).seal(session, alice);
    expect(sealed).not.toContain('idp-refresh-token');
    expect(new IdpSessionSeal(idp).open(sealed, alice)).toEqual(session);
  });

  it("does not open them for another person, nor after the host's client secret at the IdP changed", () => {
    const sealed = new IdpSessionSeal(idp).seal(session, alice);
    expect(new IdpSessionSeal(idp).open(sealed, people.of(idp.issuer, 'bob'))).toBeUndefined();
    expect(new IdpSessionSeal({ ...idp, clientSecret: 'secret-2' }).open(sealed, alice)).toBeUndefined();
  });
});
