import type { AuditOutcome, AuditTrail } from '#libs/security';

/** What an OAuth error means for the audit trail's outcome. */
const OUTCOME_OF: Record<string, AuditOutcome> = {
  invalid_client: 'unauthenticated',
  invalid_grant: 'denied',
  invalid_target: 'denied',
  access_denied: 'denied',
  unauthorized_client: 'denied',
  invalid_scope: 'denied',
  invalid_request: 'invalid',
  invalid_redirect_uri: 'invalid',
  invalid_client_metadata: 'invalid',
  unsupported_grant_type: 'invalid',
  unsupported_response_type: 'invalid',
  too_many_requests: 'throttled',
  temporarily_unavailable: 'unavailable',
  server_error: 'error',
};

/** One step of the authorization server, as the audit trail records it. */
export interface OAuthAuditEvent {
  startedAt: number;
  /** `oauth/authorize`, `oauth/callback`, `oauth/token`, `oauth/register`, `oauth/revoke`. */
  method: string;
  clientId: string | null;
  subject: string | null;
  /** What was asked (the grant type, the resource, the scope): never a secret, code or token. */
  details: Record<string, unknown>;
  /** The OAuth error, or none when the step succeeded. */
  error?: { error: string; description: string; status: number };
  remoteAddress: string | null;
}

/**
 * Records every grant and every refusal of the authorization server in the audit trail, beside
 * the MCP requests: the method is the endpoint (`oauth/token`), the target the client id, the
 * principal the person (when known), the arguments what was asked, the error what the client was
 * told. A refusal is never silent: an attack (a replayed ID-JAG, a foreign issuer, a spent
 * refresh token) leaves its record with its reason.
 */
export class OAuthAudit {
  constructor(private readonly trail: AuditTrail | undefined) {}

  record(event: OAuthAuditEvent): void {
    this.trail?.record({
      startedAt: event.startedAt,
      principal: event.subject || null,
      transport: 'http',
      method: event.method,
      target: event.clientId,
      arguments: event.details,
      outcome: event.error ? (OUTCOME_OF[event.error.error] ?? 'denied') : 'ok',
      errorCode: event.error?.status ?? null,
      error: event.error ? `${event.error.error}: ${event.error.description}` : null,
      latencyMs: Date.now() - event.startedAt,
      remoteAddress: event.remoteAddress,
    });
  }
}
