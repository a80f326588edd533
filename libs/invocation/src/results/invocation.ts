/**
 * Why a call failed, as the host records it: its arguments were invalid, it hit a limit, ran out
 * of time, was refused by a guard (`denied`) or the throttler, was cancelled, failed on purpose
 * (`tool_error`) or by accident (`error`).
 */
export type CallFailure =
  'invalid' | 'limited' | 'timeout' | 'denied' | 'throttled' | 'cancelled' | 'tool_error' | 'error';

/**
 * What running a call gave: the value to answer with and, when the call failed while still
 * answering (a tool's `isError` result), why, for the audit trail and metrics. The outcome travels
 * beside the value rather than on the `CallContext` the tool holds, so that a tool can neither
 * read nor overwrite it.
 *
 * @example
 * const { value, failure, failureMessage } = await invoker.invoke(tool, args, context);
 * if (failure) note.fail(failure, undefined, failureMessage);
 * return value;
 */
export interface Invocation<T> {
  /** What the client is answered (a tool's error result included). */
  value: T;
  /** Why the call failed; `undefined` when it did not. */
  failure?: CallFailure;
  /** What the caller was told when the call failed, secrets redacted and on one line. */
  failureMessage?: string;
}
