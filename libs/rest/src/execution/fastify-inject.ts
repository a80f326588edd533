import type { OutgoingHttpHeaders } from 'node:http';
import type { RestRequestParts } from '../openapi/rest-operation';
import type { EncodedBody } from './request-body';
import { flattenHeaders, httpOutcome, type RestHttpOutcome } from './rest-http-outcome';

/** The part of a Fastify instance the bridge uses: `inject` as Fastify documents it. */
export interface FastifyInjectable {
  inject(options: {
    method: string;
    url: string;
    headers: Record<string, string>;
    payload?: Buffer;
    signal?: AbortSignal;
  }): Promise<{ statusCode: number; headers: OutgoingHttpHeaders; rawPayload: Buffer }>;
}

/**
 * Runs a request through a Fastify application with its own `inject` (no socket). The signal is
 * passed on (newer Fastify versions honour it) and also ends the wait here.
 */
export async function injectFastify(
  fastify: FastifyInjectable,
  parts: RestRequestParts,
  headers: Record<string, string>,
  body: EncodedBody | undefined,
  signal: AbortSignal | undefined,
): Promise<RestHttpOutcome> {
  const injected = fastify.inject({
    method: parts.method,
    url: parts.url,
    headers,
    ...(body && { payload: body.bytes }),
    ...(signal && { signal }),
  });
  const response = signal ? await untilAborted(injected, signal) : await injected;
  return httpOutcome(response.statusCode, flattenHeaders(response.headers), response.rawPayload);
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => (signal.removeEventListener('abort', onAbort), resolve(value)),
      (error: unknown) => (signal.removeEventListener('abort', onAbort), reject(error as Error)),
    );
  });
}
