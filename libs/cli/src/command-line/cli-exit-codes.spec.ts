import { OUTCOMES } from '#libs/operations';
import type { AuditOutcome } from '#libs/security';
import { CliExitCode, exitCodeOf } from './cli-exit-codes';

// A Record of every outcome: one added to AuditOutcome fails the typecheck here until it has a row
// (and the test below at run time, as the host's own list of outcomes grows with the type).
const EXPECTED: Record<AuditOutcome, CliExitCode> = {
  ok: 0,
  tool_error: 1,
  error: 1,
  timeout: 1,
  unavailable: 1,
  invalid: 2,
  unauthenticated: 3,
  denied: 3,
  throttled: 3,
  limited: 3,
  not_found: 4,
  cancelled: 130,
};

describe('exitCodeOf', () => {
  it.each(Object.entries(EXPECTED) as [AuditOutcome, CliExitCode][])('%s exits with %d', (outcome, code) => {
    expect(exitCodeOf(outcome)).toBe(code);
  });

  it('maps onto the documented codes only', () => {
    expect(new Set(Object.values(EXPECTED))).toEqual(new Set(Object.values(CliExitCode)));
  });

  it('has a row for every outcome the host records, each with a code', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...OUTCOMES].sort());
    for (const outcome of OUTCOMES) expect(Object.values(CliExitCode)).toContain(exitCodeOf(outcome));
  });
});
