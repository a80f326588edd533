import { OUTCOMES } from '#libs/operations';
import type { AuditOutcome } from '#libs/security';
import { CliExitCode, exitCodeOf, failureExitCode } from './cli-exit-codes';

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

  it('maps onto the documented codes only (beside 143, which a SIGTERM gives, not an outcome)', () => {
    expect(new Set([...Object.values(EXPECTED), CliExitCode.terminated])).toEqual(new Set(Object.values(CliExitCode)));
  });

  it('has a row for every outcome the host records, each with a code', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...OUTCOMES].sort());
    for (const outcome of OUTCOMES) expect(Object.values(CliExitCode)).toContain(exitCodeOf(outcome));
  });
});

describe('failureExitCode', () => {
  it('keeps a refusal, a usage error, a missing entry and an interruption as such', () => {
    expect(failureExitCode('denied')).toBe(CliExitCode.refused);
    expect(failureExitCode('invalid')).toBe(CliExitCode.usage);
    expect(failureExitCode('not_found')).toBe(CliExitCode.notFound);
    expect(failureExitCode('cancelled')).toBe(CliExitCode.interrupted);
  });

  it('never says a failed request succeeded: an error result recorded as ok exits 1', () => {
    expect(failureExitCode('ok')).toBe(CliExitCode.toolError);
    expect(failureExitCode('tool_error')).toBe(CliExitCode.toolError);
  });
});
