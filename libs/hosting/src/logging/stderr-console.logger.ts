import type { LogLevel } from '@nestjs/common';
import { RedactingConsoleLogger } from '#libs/security';

/**
 * A Nest `ConsoleLogger` that writes every level to stderr, so that stdout carries nothing but
 * MCP messages when the host serves stdio (with secrets redacted, as `RedactingConsoleLogger`).
 *
 * @example
 * ```ts
 * const app = await NestFactory.createApplicationContext(AppModule, { logger: new StderrConsoleLogger() });
 * ```
 */
export class StderrConsoleLogger extends RedactingConsoleLogger {
  protected override printMessages(messages: unknown[], context?: string, logLevel?: LogLevel): void {
    super.printMessages(messages, context, logLevel, 'stderr');
  }
}
