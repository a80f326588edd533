/** Why a request to an external REST API got no usable answer. */
export type RemoteRequestFailure = 'timeout' | 'unreachable' | 'redirect' | 'too_large';

/**
 * A request to an external REST API that got no usable answer: it timed out, could not connect,
 * redirected elsewhere, or answered more than the size cap. It is not a message for the model:
 * the invocation layer logs it (its message names the URL without its query, which may hold a
 * key) and tells the client only that the call failed.
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
