/** A client of the authorization server, however it became known. */
export interface OAuthClient {
  clientId: string;
  /** Where its authorization codes may go (compared exactly; a loopback one with any port, RFC 8252 §7.3). */
  redirectUris: readonly string[];
  /** SHA-256 of its secret; none for a public client. */
  secretDigest?: Buffer;
  name?: string;
  /** Pre-registered (options), registered (RFC 7591) or a client ID metadata document. */
  kind: 'pre-registered' | 'registered' | 'metadata-document';
}

/** Whether `redirectUri` is one the client declared; a loopback http one matches with any port (RFC 8252). */
export function allowsRedirect(client: OAuthClient, redirectUri: string): boolean {
  if (client.redirectUris.includes(redirectUri)) return true;
  if (!URL.canParse(redirectUri)) return false;
  const asked = new URL(redirectUri);
  if (asked.protocol !== 'http:' || !['127.0.0.1', '[::1]'].includes(asked.hostname)) return false;
  return client.redirectUris.some((declared) => {
    if (!URL.canParse(declared)) return false;
    const url = new URL(declared);
    return (
      url.protocol === 'http:' &&
      url.hostname === asked.hostname &&
      url.pathname === asked.pathname &&
      url.search === asked.search
    );
  });
}
