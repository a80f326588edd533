import type { LoggerService } from '@nestjs/common';

/** One line an application logged. */
export interface LoggedLine {
  level: string;
  message: string;
  extra: unknown[];
}

/**
 * A logger that keeps every line the application logs, with its level, for a test to read: the
 * warnings of a start-up, the errors (and stacks) of a request.
 * @example
 * const logger = new CapturingLogger();
 * const app = moduleRef.createNestApplication({ logger });
 * expect(logger.at('error')).toEqual([]);
 */
export class CapturingLogger implements LoggerService {
  readonly lines: LoggedLine[] = [];
  private readonly push =
    (level: string) =>
    (message: unknown, ...extra: unknown[]) =>
      void this.lines.push({
        level,
        message: String(message instanceof Error ? `${message.message}\n${message.stack}` : message),
        extra,
      });
  log = this.push('log');
  error = this.push('error');
  warn = this.push('warn');
  debug = this.push('debug');
  verbose = this.push('verbose');
  fatal = this.push('fatal');

  /** The messages logged at `level` (what came after each, a stack or a context, is in `lines`). */
  at(level: string): string[] {
    return this.lines.filter((line) => line.level === level).map((line) => line.message);
  }
}
