import { TrustedHosts } from './trusted-hosts';

describe('TrustedHosts', () => {
  it.each([
    'clients.corp.example',
    '*.corp.example',
    '.corp.example',
    '127.0.0.1',
    '[::1]',
    'Bücher.example',
    'x.example.',
  ])('takes %j as a host', (entry) => expect(TrustedHosts.problem(entry)).toBeUndefined());

  it.each([
    'https://clients.corp.example',
    'clients.corp.example:443',
    'corp.example/clients',
    '',
    '*.',
    'a..b',
    'user@corp.example',
    3,
  ])('refuses %j, saying what a host is', (entry) =>
    expect(TrustedHosts.problem(entry)).toBe(
      'must be a host name (no scheme, port or path), or *.domain for every host under it',
    ),
  );

  const hosts = new TrustedHosts(['clients.corp.example', '*.apps.example', 'Bücher.example', '127.0.0.1']);

  it.each([
    ['https://clients.corp.example/c.json', true],
    ['https://CLIENTS.corp.example./c.json', true],
    ['https://a.apps.example/c.json', true],
    ['https://b.a.apps.example/c.json', true],
    ['https://xn--bcher-kva.example/c.json', true],
    ['https://127.0.0.1:8443/c.json', true],
    ['https://apps.example/c.json', false],
    ['https://evilapps.example/c.json', false],
    ['https://clients.corp.example.evil.example/c.json', false],
    ['https://other.corp.example/c.json', false],
  ])('trusts %s: %s', (url, trusted) => expect(hosts.trusts(new URL(url))).toBe(trusted));
});
