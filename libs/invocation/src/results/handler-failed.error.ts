import { JsonRpcError } from '#libs/core';
import type { CallFailure } from './invocation';

/**
 * A prompt or resource handler that failed, as the JSON-RPC error its client is answered with,
 * carrying why it failed for the audit trail and metrics (see `HandlerRunner.runOrThrow`).
 *
 * @example
 * try {
 *   return { value: await runner.runOrThrow(prompt, args, context, `prompts/get "${prompt.name}"`) };
 * } catch (error) {
 *   if (error instanceof HandlerFailedError) note.fail(error.failure, undefined, undefined);
 *   throw error;
 * }
 */
export class HandlerFailedError extends JsonRpcError {
  constructor(
    code: number,
    message: string,
    data: unknown,
    /** Why the handler failed: `tool_error`, `denied`, `throttled`, `invalid`, `cancelled` or `error`. */
    readonly failure: CallFailure,
  ) {
    super(code, message, data);
    this.name = 'HandlerFailedError';
  }
}
