import type { AuditOutcome, AuditTrail } from '#libs/security';

/** One step of connecting an account, or a refusal to use one, as the audit trail records it. */
export interface DownstreamAuditEvent {
  startedAt: number;
  /** `connect/start`, `connect/verify`, `connect/callback`, `connect/use`, `connect/revoke`. */
  method: string;
  /** The person (when known). */
  principal: string | null;
  /** The upstream or API (`api crm`). */
  target: string;
  details?: Record<string, unknown>;
  outcome: AuditOutcome;
  error?: string;
  remoteAddress?: string | null;
}

/**
 * Records the connected accounts' life in the audit trail, beside the calls: a connection made,
 * refused (the link opened by another person), used by someone it is not for, revoked.
 */
export class DownstreamAudit {
  constructor(private readonly trail: AuditTrail | undefined) {}

  record(event: DownstreamAuditEvent): void {
    this.trail?.record({
      startedAt: event.startedAt,
      principal: event.principal,
      transport: 'http',
      method: event.method,
      target: event.target,
      arguments: event.details ?? {},
      outcome: event.outcome,
      errorCode: event.outcome === 'ok' ? null : 403,
      error: event.error ?? null,
      latencyMs: Date.now() - event.startedAt,
      remoteAddress: event.remoteAddress ?? null,
    });
  }
}
