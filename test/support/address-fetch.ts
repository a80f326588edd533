import { request } from 'node:http';
import { Readable } from 'node:stream';

/** Statuses whose response has no body (the `Response` constructor refuses one). */
const NO_BODY = new Set([101, 204, 205, 304]);

/**
 * A `fetch` whose connections leave from `localAddress` (any 127.x address on Linux's loopback),
 * so that one test process can be several clients at different addresses — to a host directly,
 * or to a proxy that writes the address in `X-Forwarded-For`. Plain `http:` only; enough of
 * `fetch` for the SDK's Streamable HTTP transport and for raw requests (streamed bodies, SSE,
 * abort signals).
 *
 * @example
 * ```ts
 * const fromStranger = fetchFrom('127.0.0.2');
 * await fromStranger(`${url}/mcp`, { method: 'POST', headers, body });
 * new StreamableHTTPClientTransport(new URL(url), { fetch: fetchFrom('127.0.0.3') });
 * ```
 */
export function fetchFrom(localAddress: string): typeof fetch {
  return async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(input instanceof Request ? input.headers : undefined);
    new Headers(init.headers).forEach((value, name) => headers.set(name, value));
    const body = init.body == null ? undefined : Buffer.from(await new Response(init.body).arrayBuffer());
    if (body) headers.set('content-length', String(body.length));
    return new Promise<Response>((resolve, reject) => {
      const outgoing = request(
        url,
        {
          method: init.method ?? 'GET',
          headers: Object.fromEntries(headers),
          localAddress,
          signal: init.signal ?? undefined,
        },
        (incoming) => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(incoming.headers))
            for (const item of Array.isArray(value) ? value : [value ?? '']) responseHeaders.append(name, item);
          const status = incoming.statusCode ?? 0;
          if (NO_BODY.has(status)) incoming.resume();
          const stream = NO_BODY.has(status) ? null : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>);
          resolve(new Response(stream, { status, statusText: incoming.statusMessage, headers: responseHeaders }));
        },
      );
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  };
}
