import { ConsoleLogger, type ConsoleLoggerOptions, type LogLevel } from '@nestjs/common';
import { SecretRedactor } from './secret-redactor';

/**
 * Nest's `ConsoleLogger` with secrets (bearer tokens, `password=`, URL credentials, key formats,
 * plus your patterns) removed from every message and stack trace it prints.
 *
 * @example
 * ```ts
 * const app = await NestFactory.create(AppModule, { logger: new RedactingConsoleLogger() });
 * ```
 */
export class RedactingConsoleLogger extends ConsoleLogger {
  private readonly secrets: SecretRedactor;

  constructor(options: ConsoleLoggerOptions & { secretPatterns?: (RegExp | string)[] } = {}) {
    const { secretPatterns, ...rest } = options;
    super(rest);
    this.secrets = new SecretRedactor(secretPatterns);
  }

  protected override formatMessage(
    logLevel: LogLevel,
    message: unknown,
    pidMessage: string,
    formattedLogLevel: string,
    contextMessage: string,
    timestampDiff: string,
    params?: Record<string, unknown>,
  ): string {
    return this.secrets.redact(
      super.formatMessage(logLevel, message, pidMessage, formattedLogLevel, contextMessage, timestampDiff, params),
    );
  }

  protected override printStackTrace(stack: string): void {
    super.printStackTrace(this.secrets.redact(stack));
  }
}
