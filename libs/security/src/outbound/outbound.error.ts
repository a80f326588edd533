/**
 * Why an outbound request got no usable answer: `refused` (an address its policy does not let it
 * reach: nothing was connected to), `timeout` (no whole answer within its deadline), `too_large`
 * (an answer past its size cap), `unreachable` (no connection, or it broke off).
 */
export type OutboundFailure = 'refused' | 'timeout' | 'too_large' | 'unreachable';

/**
 * An outbound request the host gave up on, or never made. Its message names the URL's host, and
 * for a limit the limit and the option that sets it; it never holds what the other side answered.
 *
 * @example
 * ```ts
 * try {
 *   await outboundFetch(url, { method: 'POST', body }, { purpose: 'the approvals webhook', policy, timeoutMs: 5_000, maxBytes: 65_536 });
 * } catch (error) {
 *   if (error instanceof OutboundError && error.failure === 'refused') logger.warn(error.message);
 * }
 * ```
 */
export class OutboundError extends Error {
  /** What to do about it, when something can be done (a refusal: the option that would allow it). */
  readonly fix: string | undefined;

  constructor(
    readonly failure: OutboundFailure,
    /** The host the request was for (as its URL names it). */
    readonly host: string,
    message: string,
    options?: { cause?: unknown; fix?: string },
  ) {
    super(message, options);
    this.fix = options?.fix;
    this.name = 'OutboundError';
  }
}
