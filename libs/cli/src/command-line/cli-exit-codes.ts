import type { AuditOutcome } from '#libs/security';

/**
 * The exit codes of the command line: what a shell script, a cron job or a CI step can act on.
 * docs/cli.md lists them.
 */
export const CliExitCode = {
  /** The command did what it was asked. */
  ok: 0,
  /** The tool ran and failed (`isError`), timed out, or the host failed. */
  toolError: 1,
  /** The command line or the arguments are wrong: which option, what was expected. */
  usage: 2,
  /** Refused: authentication, authorization, throttling, or a confirmation declined. */
  refused: 3,
  /** No tool, prompt or resource of that name. */
  notFound: 4,
  /** Interrupted (Ctrl-C): the call was cancelled. 128 + SIGINT, as shells report it. */
  interrupted: 130,
  /**
   * Terminated (SIGTERM): the application stopped as a host does, its call answered (finished, or
   * cancelled once `shutdownTimeoutMs` was over) and recorded. 128 + SIGTERM.
   */
  terminated: 143,
} as const;

export type CliExitCode = (typeof CliExitCode)[keyof typeof CliExitCode];

/** The exit code of a request that ended with `outcome` (as the audit trail records it). */
export function exitCodeOf(outcome: AuditOutcome): CliExitCode {
  switch (outcome) {
    case 'ok':
      return CliExitCode.ok;
    case 'invalid':
      return CliExitCode.usage;
    case 'denied':
    case 'throttled':
    case 'limited':
    case 'unauthenticated':
      return CliExitCode.refused;
    case 'not_found':
      return CliExitCode.notFound;
    case 'cancelled':
      return CliExitCode.interrupted;
    case 'tool_error':
    case 'error':
    case 'timeout':
    case 'unavailable':
      return CliExitCode.toolError;
  }
}

/**
 * The exit code of a request that failed (an `isError` result or a refused request): a refusal,
 * bad arguments or a missing entry as such, anything else (even an outcome recorded as `ok`) 1.
 */
export function failureExitCode(outcome: AuditOutcome): CliExitCode {
  const code = exitCodeOf(outcome);
  return code === CliExitCode.ok ? CliExitCode.toolError : code;
}
