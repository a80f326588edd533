/**
 * An OAuth error answer (RFC 6749 §5.2): its code, the description the client is told, the HTTP
 * status, and the headers that go with it (`Retry-After`). Every refusal of the authorization
 * server is one, and is audited as it is told, with the person it concerns when the facade knows
 * them (`about`).
 */
export class OAuthError extends Error {
  /** The person the refusal concerns (a revoked sign-in's, a refused consent's), for the audit trail. */
  subject: string | undefined;

  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(description);
  }

  /** This error, about `subject`. */
  about(subject: string): this {
    this.subject = subject;
    return this;
  }
}
