import { People, personKey } from './people';

describe('People', () => {
  const people = new People({
    idp: { issuer: 'https://login.corp.example', clientId: 'c', clientSecret: 's', scopes: ['openid'] },
    trustedIdps: [
      { issuer: 'https://partner.example', jwksUri: 'https://partner.example/jwks', sameDirectory: false },
      { issuer: 'https://corp.okta.example/oauth2/x', jwksUri: 'https://corp.okta.example/k', sameDirectory: true },
    ],
  });

  it("keeps the company IdP's subjects (and a shared directory's), and namespaces another issuer's", () => {
    expect(people.of('https://login.corp.example', 'alice').id).toBe('alice');
    expect(people.of('https://corp.okta.example/oauth2/x', 'alice').id).toBe('alice');
    expect(people.of('https://partner.example', 'alice').id).toBe('https://partner.example#alice');
  });

  it('keys a person by issuer and subject', () => {
    expect(personKey(people.of('https://partner.example', 'alice'))).not.toBe(
      personKey(people.of('https://login.corp.example', 'alice')),
    );
  });
});
