import { IntrinsicException } from '@nestjs/common';

/**
 * Why a call was cancelled (the client cancelled or disconnected, the host is draining, a
 * 2026-07-28 call stopped to ask its client for input): what `ctx.signal` aborts with and a
 * handler that stops on it throws. Not a failure of the host, so Nest's exception handler
 * does not log it (it is an `IntrinsicException`).
 */
export class CallCancelledError extends IntrinsicException {
  constructor(message: string) {
    super(message);
    this.name = 'CallCancelledError';
  }
}
