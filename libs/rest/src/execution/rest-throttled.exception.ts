import { HttpException, HttpStatus } from '@nestjs/common';
import type { McpRetryable } from '#libs/core';

/**
 * A REST route (or an external API) answered 429. Thrown, it is classified as `throttled` by the
 * invocation layer like the host's own throttler, and `retryAfterSeconds` (from the answer's
 * `Retry-After`, when it had one) reaches the client in the error result's `_meta`.
 * `toToolResult` throws it; it is exported for code that handles the bridge's errors.
 *
 * @example
 * ```ts
 * throw new RestThrottledException('Too many exports, slow down. Retry in 7 s.', 7);
 * ```
 */
export class RestThrottledException extends HttpException implements Partial<McpRetryable> {
  constructor(
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(
      { statusCode: HttpStatus.TOO_MANY_REQUESTS, message, error: 'Too Many Requests' },
      HttpStatus.TOO_MANY_REQUESTS,
    );
  }
}

/**
 * The seconds a `Retry-After` header asks for: delay-seconds, or an HTTP date (rounded up, never
 * negative). `undefined` when absent or unreadable.
 */
export function retryAfterSecondsOf(header: string | undefined, now: number = Date.now()): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}
