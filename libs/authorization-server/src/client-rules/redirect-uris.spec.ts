import { matchesRedirectUri, redirectsToLoopbackOnly, redirectUriProblem } from './redirect-uris';

describe('redirect URIs', () => {
  it.each([
    'https://app.example/callback',
    'http://127.0.0.1:33418/callback',
    'http://localhost:6274/oauth/callback',
    'http://[::1]/cb',
    'com.example.app:/oauth2redirect',
    'cursor://anysphere.cursor-retrieval/oauth/callback',
  ])('takes %s', (uri) => expect(redirectUriProblem(uri)).toBeUndefined());

  it.each([
    ['http://127.0.0.1:3000/cb#x', 'must not have a fragment (#)'],
    ['https://app.example/cb#', 'must not have a fragment (#)'],
    ['https://user:pw@app.example/cb', 'must not carry a user name or password'],
    ['http://app.example/cb', 'must use https (http only on localhost, 127.0.0.1 or [::1])'],
    ['http://127.0.0.2/cb', 'must use https (http only on localhost, 127.0.0.1 or [::1])'],
    ['javascript:alert(1)', 'must not use the javascript: scheme'],
    ['data:text/html,x', 'must not use the data: scheme'],
    ['/relative', 'must be an absolute URL'],
    [`https://app.example/${'a'.repeat(600)}`, 'is longer than 512 characters'],
    [7, 'must be a string'],
  ])('refuses %s: %s', (uri, problem) => expect(redirectUriProblem(uri)).toBe(problem));

  it('matches exactly, or a loopback IP literal with any port (RFC 8252), never with a fragment or credentials', () => {
    const declared = ['http://127.0.0.1/callback', 'http://localhost:6274/oauth/callback', 'https://app.example/cb'];
    expect(matchesRedirectUri(declared, 'https://app.example/cb')).toBe(true);
    expect(matchesRedirectUri(declared, 'http://127.0.0.1:51234/callback')).toBe(true);
    expect(matchesRedirectUri(declared, 'http://localhost:6274/oauth/callback')).toBe(true);
    expect(matchesRedirectUri(declared, 'http://localhost:9999/oauth/callback')).toBe(false);
    expect(matchesRedirectUri(declared, 'http://127.0.0.1:51234/callback#steal')).toBe(false);
    expect(matchesRedirectUri(declared, 'http://127.0.0.1:51234/callback#')).toBe(false);
    expect(matchesRedirectUri(declared, 'http://x@127.0.0.1:51234/callback')).toBe(false);
    expect(matchesRedirectUri(declared, 'http://127.0.0.1:51234/other')).toBe(false);
    expect(matchesRedirectUri(declared, 'https://app.example/cb/')).toBe(false);
    expect(matchesRedirectUri(['https://app.example/cb#'], 'https://app.example/cb#')).toBe(false);
  });

  it('tells a client whose every redirect URI is on loopback', () => {
    expect(redirectsToLoopbackOnly(['http://127.0.0.1/cb', 'http://localhost:1/cb'])).toBe(true);
    expect(redirectsToLoopbackOnly(['http://127.0.0.1/cb', 'https://app.example/cb'])).toBe(false);
    expect(redirectsToLoopbackOnly([])).toBe(false);
  });
});
