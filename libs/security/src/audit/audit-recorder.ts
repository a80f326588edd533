import type { AuditEntry } from './audit-record';
import type { AuditTrail } from './audit-trail';

/** A finished request (or a refusal before any method ran) as the engine reports it to its observers. */
export interface AuditableEvent extends AuditEntry {
  /** Its method is recorded whatever the outcome (`initialize`, calls, task methods). */
  readonly audited: boolean;
  /** Refused before any method ran (authentication, Host/Origin, limits): summed up per window. */
  readonly refusal?: boolean;
}

/**
 * The one place requests become audit records: an observer of the engine's request events.
 * Every failed request and every audited method's request is recorded; refusals made before
 * any method ran go through the trail's per-window summing, so a flood costs a few records.
 * (The approvals feature records its decisions itself: they are not requests.)
 *
 * @example
 * ```ts
 * observers.add(new AuditRecorder(trail)); // done by McpModule when the `audit` option is set
 * ```
 */
export class AuditRecorder {
  constructor(private readonly trail: AuditTrail) {}

  observe(event: AuditableEvent): void {
    if (event.refusal) this.trail.recordRefusal(event);
    else if (event.audited || event.outcome !== 'ok') this.trail.record(event);
  }
}
