import { matchesRedirectUri } from '../client-rules/redirect-uris';

/** A client of the authorization server, however it became known. */
export interface OAuthClient {
  clientId: string;
  /** Where its authorization codes may go (compared exactly; a loopback IP one with any port, RFC 8252 §7.3). */
  redirectUris: readonly string[];
  /** SHA-256 of its secret; none for a public client. */
  secretDigest?: Buffer;
  name?: string;
  /** Pre-registered (options), registered (RFC 7591) or a client ID metadata document. */
  kind: 'pre-registered' | 'registered' | 'metadata-document';
}

/**
 * Whether `redirectUri` is one the client declared: the same string, or an http one on a loopback
 * IP literal with another port (RFC 8252 §7.3); never one with a fragment or credentials.
 */
export function allowsRedirect(client: OAuthClient, redirectUri: string): boolean {
  return matchesRedirectUri(client.redirectUris, redirectUri);
}
