/** A forwarding sink built with invalid options: every problem at once, each with its fix. */
export class AuditSinkOptionsError extends Error {
  constructor(
    readonly sink: string,
    readonly problems: readonly string[],
  ) {
    super(`Invalid ${sink} options:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'AuditSinkOptionsError';
  }
}

/** The error a sink's constructor throws for `problems`. */
export const sinkOptionsError = (sink: string, problems: readonly string[]): AuditSinkOptionsError =>
  new AuditSinkOptionsError(sink, problems);
