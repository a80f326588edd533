import type { AuditOutcome } from '#libs/security';

/** Where each outcome is counted in per-outcome arrays (every `AuditOutcome`, checked by the type). */
export const OUTCOME_INDEX: Readonly<Record<AuditOutcome, number>> = {
  ok: 0,
  tool_error: 1,
  error: 2,
  unauthenticated: 3,
  denied: 4,
  throttled: 5,
  invalid: 6,
  limited: 7,
  not_found: 8,
  cancelled: 9,
  timeout: 10,
  unavailable: 11,
};

/** Every outcome a request can have, in `OUTCOME_INDEX` order. */
export const OUTCOMES = Object.keys(OUTCOME_INDEX) as readonly AuditOutcome[];
