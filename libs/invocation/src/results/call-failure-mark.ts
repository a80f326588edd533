import type { CallFailure } from './invocation';

/**
 * Error results marked with why the call failed, when that is not the tool's own error: the
 * confirmation gate's refusal is `denied`, a REST route's 400 is `invalid`. A WeakMap rather
 * than a property, so the mark never reaches the client and a tool cannot set it through what
 * it returns.
 */
const MARKS = new WeakMap<object, CallFailure>();

/**
 * Marks an error result with the outcome the audit trail and metrics should record for it.
 * @internal for the host's own libraries (the confirmation gate, the REST bridge)
 * @example
 * return markCallFailure({ content: [{ type: 'text', text: 'priority: must be ≥ 1' }], isError: true }, 'invalid');
 */
export function markCallFailure<T extends object>(result: T, failure: CallFailure): T {
  MARKS.set(result, failure);
  return result;
}

/**
 * The outcome an error result was marked with; `undefined` for an unmarked one.
 * @internal
 */
export function markedCallFailure(result: unknown): CallFailure | undefined {
  return typeof result === 'object' && result !== null ? MARKS.get(result) : undefined;
}
