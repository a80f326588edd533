/**
 * Thrown by `toRequestParts` when the arguments cannot make a request: a required path parameter
 * is missing. Input validation normally catches that first; this guards a call that skipped it.
 *
 * @example
 * ```ts
 * try {
 *   toRequestParts(getPetById, {});
 * } catch (error) {
 *   if (error instanceof RestRequestError) return { isError: true, content: [{ type: 'text', text: error.message }] };
 *   throw error;
 * }
 * ```
 */
export class RestRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RestRequestError';
  }
}
