/**
 * An OAuth error answer (RFC 6749 §5.2): its code, the description the client is told, the HTTP
 * status, and the headers that go with it (`Retry-After`). Every refusal of the authorization
 * server is one, and is audited as it is told.
 */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(description);
  }
}
