/** Why a request to an external REST API got no usable answer. */
export type RemoteRequestFailure = 'timeout' | 'unreachable' | 'redirect' | 'too_large';

/**
 * A request to an external REST API that got no usable answer: it timed out, could not connect,
 * redirected elsewhere, or answered more than the size cap. It is not a message for the model:
 * the invocation layer logs it (its message names the URL without its query, which may hold a
 * key) and tells the client only that the call failed.
 *
 * @example
 * ```ts
 * try {
 *   await runRemote(baseUrl, parts, { timeoutMs: 5_000 });
 * } catch (error) {
 *   if (error instanceof RemoteRequestError && error.failure === 'timeout') metrics.upstreamTimeouts.inc();
 *   throw error;
 * }
 * ```
 */
export class RemoteRequestError extends Error {
  constructor(
    readonly failure: RemoteRequestFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'RemoteRequestError';
  }
}
