import type { RestRequestParts } from '../openapi/rest-operation';
import { readCappedBody } from './capped-body';
import { applyCredentials, type RestRemoteCredentials } from './remote-credentials';
import { RemoteRequestError } from './remote-request.error';
import { encodeRequestBody } from './request-body';
import { requestHeaders } from './request-headers';
import { RestExecutionMessages } from './rest-execution.messages';
import { httpOutcome, type RestHttpOutcome } from './rest-http-outcome';

/** How a request to an external REST API is made. */
export interface RemoteRequestOptions {
  readonly credentials?: RestRemoteCredentials;
  /** The longest the whole exchange (redirects and body included) may take. @default 30000 */
  readonly timeoutMs?: number;
  /** The caller giving up (the tool call's cancellation); the promise then rejects with its reason. */
  readonly signal?: AbortSignal;
  /** The largest response body accepted. @default 5242880 (5 MB) */
  readonly maxResponseBytes?: number;
  /** The `fetch` to use (e.g. one with a proxy dispatcher). @default globalThis.fetch */
  readonly fetch?: typeof fetch;
}

/** Same-origin redirects followed before giving up (a trailing-slash or moved-path redirect needs one). */
const MAX_REDIRECTS = 3;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Makes the request of an external API's operation over HTTP: `parts.url` appended to `baseUrl`
 * (which keeps its path, e.g. `https://petstore3.swagger.io/api/v3`), with the operation's header
 * parameters, `accept: application/json` and the configured credentials.
 *
 * Redirects are followed only within the base URL's origin, at most 3 times: a redirect elsewhere
 * would carry the credentials (or a key in the query) to a host nobody configured, so it is
 * refused rather than followed.
 *
 * @example
 * ```ts
 * const outcome = await runRemote('https://petstore3.swagger.io/api/v3', parts, {
 *   credentials: { apiKey: { in: 'header', name: 'api_key', value: key } },
 *   timeoutMs: 10_000,
 *   signal: context.cancellation.signal,
 * });
 * ```
 * @throws RemoteRequestError on a timeout, a connection failure, a cross-origin redirect or a body over the cap
 * @throws McpToolError when a header parameter's value cannot travel in HTTP
 * @throws the signal's reason when `options.signal` aborts first
 */
export async function runRemote(
  baseUrl: string,
  parts: RestRequestParts,
  options: RemoteRequestOptions = {},
): Promise<RestHttpOutcome> {
  options.signal?.throwIfAborted();
  const timeoutMs = options.timeoutMs ?? 30_000;
  const limit = options.maxResponseBytes ?? 5 * 1024 * 1024;
  const fetchFn = options.fetch ?? globalThis.fetch;
  let url = new URL(joinUrl(baseUrl, parts.url));
  const body = encodeRequestBody(parts.body, parts.headers['content-type']);
  const headers = requestHeaders(parts, body);
  // fetch computes the length itself (and may not be told it).
  delete headers['content-length'];
  applyCredentials(options.credentials, headers, url);
  const origin = url.origin;

  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout.signal]) : timeout.signal;
  let method: string = parts.method;
  let payload: Buffer | undefined = body?.bytes;
  try {
    for (let redirects = 0; ; redirects++) {
      const response = await fetchFn(url, { method, headers, body: payload, redirect: 'manual', signal });
      const location = response.headers.get('location');
      if (REDIRECTS.has(response.status) && location) {
        await response.body?.cancel().catch(() => undefined);
        const target = new URL(location, url);
        if (target.origin !== origin)
          throw new RemoteRequestError(
            'redirect',
            RestExecutionMessages.crossOriginRedirect(method, withoutQuery(url), withoutQuery(target)),
          );
        if (redirects === MAX_REDIRECTS)
          throw new RemoteRequestError(
            'redirect',
            RestExecutionMessages.tooManyRedirects(method, withoutQuery(url), MAX_REDIRECTS),
          );
        // As browsers do: 303, and 301/302 after a POST, continue as a GET without the body.
        if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
          if (method !== 'HEAD') method = 'GET';
          payload = undefined;
          delete headers['content-type'];
        }
        url = target;
        continue;
      }
      const bytes = await readCappedBody(response, limit);
      if (!bytes)
        throw new RemoteRequestError('too_large', RestExecutionMessages.tooLarge(method, withoutQuery(url), limit));
      return httpOutcome(response.status, Object.fromEntries(response.headers), bytes);
    }
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (timeout.signal.aborted)
      throw new RemoteRequestError('timeout', RestExecutionMessages.timedOut(method, withoutQuery(url), timeoutMs), {
        cause: error,
      });
    if (error instanceof RemoteRequestError) throw error;
    const reason = ((error as Error).cause as Error | undefined)?.message ?? (error as Error).message;
    throw new RemoteRequestError('unreachable', RestExecutionMessages.unreachable(method, withoutQuery(url), reason), {
      cause: error,
    });
  } finally {
    clearTimeout(timer);
  }
}

/** The base URL (its query and fragment dropped) and the operation's path, one slash between them. */
function joinUrl(baseUrl: string, path: string): string {
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    throw new TypeError(RestExecutionMessages.badBaseUrl(baseUrl));
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:')
    throw new TypeError(RestExecutionMessages.badBaseUrl(baseUrl));
  const root = `${base.origin}${base.pathname}`.replace(/\/+$/, '');
  return `${root}/${path.replace(/^\/+/, '')}`;
}

/** A URL fit for a log line: the query (which may hold an API key) and credentials dropped. */
function withoutQuery(url: URL): string {
  return `${url.origin}${url.pathname}`;
}
