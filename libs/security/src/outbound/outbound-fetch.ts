import type { ConnectionOptions } from 'node:tls';
import type { Agent } from 'undici';
import { guardedAgent, undici } from './outbound-connector';
import { OutboundError } from './outbound.error';
import { OutboundMessages } from './outbound.messages';
import type { OutboundPolicy } from './outbound-policy';

/** How one outbound request is made and bounded. */
export interface OutboundRequestOptions {
  /** What is fetched, in messages: `'the approvals webhook'`. */
  readonly purpose: string;
  /** Where it may connect. */
  readonly policy: OutboundPolicy;
  /** The longest the whole exchange may take: connecting, sending, the answer's headers and its whole body. */
  readonly timeoutMs: number;
  /** The option that sets `timeoutMs`, named in its error (none: a fixed limit). */
  readonly timeoutOption?: string;
  /** The most bytes of the answer's body. */
  readonly maxBytes: number;
  /** The option that sets `maxBytes`, named in its error (none: a fixed limit). */
  readonly maxBytesOption?: string;
  /** `tls.connect` options (a private CA, a client certificate); see `dispatcher`. */
  readonly tls?: ConnectionOptions;
  /** The agent to send through, made once by the caller with `guardedAgent(policy, tls)` (else made here). */
  readonly dispatcher?: Agent;
}

/** Statuses whose response has no body (the `Response` constructor refuses one). */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * One outbound HTTP request, bounded: every connection it makes is guarded by its policy (each
 * address its host resolves to, checked when connecting), no redirect is followed (a 3xx is the
 * answer), the whole exchange has a deadline (not an idle timeout: a body that trickles in is
 * cut at it) and the body a size cap. Resolves with a `Response` whose body is read already.
 *
 * @example
 * ```ts
 * const policy = OutboundPolicies.configured([webhook.url]);
 * const response = await outboundFetch(webhook.url, { method: 'POST', headers, body }, {
 *   purpose: 'the approvals webhook', policy, timeoutMs: webhook.timeoutMs,
 *   timeoutOption: 'approvals.webhook.timeoutMs', maxBytes: 64 * 1024,
 * });
 * ```
 * @throws OutboundError refused (nothing connected), timeout, too_large or unreachable, its message naming the host and the limit
 * @throws the reason of `init.signal` when it aborts first
 */
export async function outboundFetch(
  url: string | URL,
  init: RequestInit,
  options: OutboundRequestOptions,
): Promise<Response> {
  const target = new URL(url);
  const host = target.host;
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
  const dispatcher = options.dispatcher ?? guardedAgent(options.policy, options.tls);
  const tooLarge = () =>
    new OutboundError(
      'too_large',
      host,
      OutboundMessages.tooLarge(options.purpose, host, options.maxBytes, options.maxBytesOption),
    );
  try {
    const response = await undici().fetch(target, {
      ...(init as Parameters<ReturnType<typeof undici>['fetch']>[1]),
      redirect: 'manual',
      signal,
      dispatcher,
    });
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (declared > options.maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw tooLarge();
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    if (response.body)
      for await (const chunk of response.body) {
        size += chunk.byteLength;
        // Leaving the loop by a throw cancels the stream.
        if (size > options.maxBytes) throw tooLarge();
        chunks.push(chunk);
      }
    return new Response(NO_BODY.has(response.status) ? null : Buffer.concat(chunks), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers as unknown as Headers,
    });
  } catch (error) {
    if (init.signal?.aborted) throw init.signal.reason;
    if (error instanceof OutboundError) throw error;
    if (deadline.aborted)
      throw new OutboundError(
        'timeout',
        host,
        OutboundMessages.timedOut(options.purpose, host, options.timeoutMs, options.timeoutOption),
        { cause: error },
      );
    throw unreachable(error, options.purpose, host);
  }
}

/**
 * `outboundFetch` with its options bound, as a `fetch`: for a library that takes one
 * (openid-client's and jose's `customFetch`). Its agent (and undici) is made with its first request.
 *
 * @example
 * ```ts
 * const policy = OutboundPolicies.configured([issuer], 'the company IdP');
 * await client.discovery(new URL(issuer), clientId, metadata, auth, {
 *   [client.customFetch]: outboundFetcher({ purpose: 'the company IdP', policy, timeoutMs: 30_000, maxBytes: 1 << 20 }),
 * });
 * ```
 */
export function outboundFetcher(options: OutboundRequestOptions): typeof fetch {
  let bound: OutboundRequestOptions | undefined;
  return (input, init) => {
    bound ??= { ...options, dispatcher: options.dispatcher ?? guardedAgent(options.policy, options.tls) };
    return outboundFetch(input instanceof Request ? input.url : input, { ...init }, bound);
  };
}

/**
 * A `fetch` whose every connection is guarded by `policy`, its body left to the caller, for
 * callers that bound what they read themselves (a stream: an upstream's SSE; the REST bridge's
 * requests, with their own deadline, cap and same-origin redirects). A refusal rejects with the
 * `OutboundError` itself.
 */
export function guardedFetch(policy: OutboundPolicy, tls?: ConnectionOptions): typeof fetch {
  const dispatcher = guardedAgent(policy, tls);
  return async (input, init) => {
    const url = input instanceof Request ? input.url : input;
    try {
      return (await undici().fetch(url, {
        ...(init as Parameters<ReturnType<typeof undici>['fetch']>[1]),
        dispatcher,
      })) as unknown as Response;
    } catch (error) {
      const cause = (error as Error).cause;
      throw cause instanceof OutboundError ? cause : error;
    }
  };
}

/** A failure to connect or read, as an `OutboundError` (a refusal as it was made). */
function unreachable(error: unknown, purpose: string, host: string): OutboundError {
  const cause = (error as Error).cause as (Error & { code?: string }) | undefined;
  if (cause instanceof OutboundError) return cause;
  const code = cause?.code ?? (error as { code?: string }).code;
  return new OutboundError('unreachable', host, OutboundMessages.unreachable(purpose, host, code), { cause: error });
}
