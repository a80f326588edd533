import { IncomingMessage } from 'node:http';
import type { HttpAdapterHost } from '@nestjs/core';
import { httpPlatformOf, MCP_REST_REQUEST, type HttpPlatform } from '#libs/core';
import type { RestRequestParts } from '../openapi/rest-operation';
import { captureResponse } from './captured-response';
import { LoopbackSocket } from './loopback-socket';
import { encodeRequestBody } from './request-body';
import { requestHeaders } from './request-headers';
import { flattenHeaders, httpOutcome, type RestHttpOutcome } from './rest-http-outcome';

/** The application's HTTP adapter, as `HttpAdapterHost` holds it. */
export type RestHttpAdapter = HttpAdapterHost['httpAdapter'];

/** How an in-process request is made. */
export interface InProcessRequestOptions {
  /**
   * The MCP caller as the route's guards expect it, set as `request.user` before the application
   * sees the request (the mapping Passport-style guards read). Computed by the caller.
   */
  readonly user?: unknown;
  /**
   * Abandons the request: the request emits `aborted` and `close`, its connection `close`, and
   * the promise rejects with the signal's reason. The only way to stop a route that never answers.
   */
  readonly signal?: AbortSignal;
  /** Stored under `request[MCP_REST_REQUEST]` for the application to read. @default true */
  readonly marker?: unknown;
  /**
   * The address the request comes from, as the route sees it (`req.ip`): the MCP client's, so
   * that the app's address-based rate limits and allow-lists count and judge the real client.
   * @default '127.0.0.1'
   */
  readonly remoteAddress?: string;
}

/**
 * Runs a request through the application's own HTTP stack (Express or Fastify: its middleware and
 * hooks, Nest's routing, the route's guards, interceptors, pipes and exception filters) without a
 * socket or a port, and resolves with what the application answered.
 *
 * The request carries the headers of `parts.headers`, `host: localhost`,
 * `accept: application/json` and the body's `content-type` and `content-length`; nothing of the
 * MCP request reaches the route but `options.user` (as `request.user`) and the client's address
 * (`options.remoteAddress`, else `127.0.0.1`). It is marked with `MCP_REST_REQUEST`.
 *
 * It never times out by itself: a route that never ends its response is stopped by
 * `options.signal` (the tool call's cancellation or deadline), which must therefore be given
 * for any route that could hang.
 *
 * On Fastify, `request.user` and the marker reach Fastify's request object through a request hook
 * that must be added before the application listens: the REST bridge adds it when it exposes a
 * route (else the first call adds it, which must then come before `app.listen()`).
 *
 * @example
 * ```ts
 * const outcome = await runInProcess(adapterHost.httpAdapter, parts, {
 *   user: { id: principal.subject, roles: principal.scopes },
 *   signal: context.cancellation.signal,
 * });
 * return toToolResult(outcome, { wrapsResult: tool.wrapsResult, operationLabel: 'GET /api/tickets/{id}' });
 * ```
 * @throws McpToolError when a header parameter's value cannot travel in HTTP
 * @throws the signal's reason when `options.signal` aborts first
 */
export async function runInProcess(
  adapter: RestHttpAdapter,
  parts: RestRequestParts,
  options: InProcessRequestOptions = {},
): Promise<RestHttpOutcome> {
  options.signal?.throwIfAborted();
  const body = encodeRequestBody(parts.body, parts.headers['content-type']);
  const headers = requestHeaders(parts, body);
  headers.host = 'localhost';
  return run(httpPlatformOf(adapter), parts, headers, body?.bytes, options);
}

function run(
  platform: HttpPlatform,
  parts: RestRequestParts,
  headers: Record<string, string>,
  body: Buffer | undefined,
  options: InProcessRequestOptions,
): Promise<RestHttpOutcome> {
  const { signal } = options;
  return new Promise<RestHttpOutcome>((resolve, reject) => {
    const socket = new LoopbackSocket(options.remoteAddress);
    const request = new IncomingMessage(socket.asSocket());
    request.method = parts.method;
    request.url = parts.url;
    request.httpVersion = '1.1';
    request.httpVersionMajor = 1;
    request.httpVersionMinor = 1;
    // The headers are this request's own (`requestHeaders` made them for it): no copy.
    request.headers = headers;
    const raw: string[] = [];
    for (const name in headers) raw.push(name, headers[name]);
    request.rawHeaders = raw;
    if (body?.length) request.push(body);
    request.push(null);
    request.complete = true;

    let settled = false;
    const capture = captureResponse(request, socket.asSocket(), (captured) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      resolve(httpOutcome(captured.status, flattenHeaders(captured.headers), captured.body));
    });
    function onAbort() {
      if (settled) return;
      settled = true;
      capture.abandon();
      // As when a client goes away: the request is aborted, then the connection closes.
      (request as { aborted: boolean }).aborted = true;
      request.emit('aborted');
      request.emit('close');
      socket.destroy();
      reject(signal?.reason);
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    const properties = { user: options.user, [MCP_REST_REQUEST]: options.marker ?? true };
    platform.dispatch(request, capture.response, properties).catch((error: unknown) => {
      // The frameworks catch their handlers' errors; this is a broken or closed application.
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      reject(error as Error);
    });
  });
}
