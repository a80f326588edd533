import { McpStartupError } from '#libs/core';
import { StderrConsoleLogger } from '#libs/hosting';

/**
 * The application's logger while a command runs: every level on stderr, as a stdio host's. A
 * configuration error that stops the application starting is left to the runner, which prints
 * its message once; Nest would print it too, with its stack.
 */
export class CliLogger extends StderrConsoleLogger {
  override error(message: unknown, ...rest: unknown[]): void {
    if (message instanceof McpStartupError) return;
    super.error(message, ...rest);
  }
}
