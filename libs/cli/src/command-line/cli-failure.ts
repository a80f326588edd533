import type { CliExitCode } from './cli-exit-codes';

/** A command that cannot go on: its message for stderr and its exit code. */
export class CliFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: CliExitCode,
  ) {
    super(message);
    this.name = 'CliFailure';
  }
}
