import type { Dispatcher, Pool } from 'undici';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import type { ToolHeaderParam } from '#libs/catalog';
import { guardedConnector, type OutboundPolicy } from '#libs/security';
import { CallerCredentialRefused } from './upstream-errors';
import type { ClientCredentials } from './client-credentials';
import { JsonRpcAnswerHandler, type AnswerChannel } from './json-rpc-answer.handler';
import { modernHeaders, withEnvelope, type ModernClient } from './modern-request';

/** undici, loaded with the first HTTP upstream's channel: an application without one never loads it. */
function undici(): typeof import('undici') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('undici') as typeof import('undici');
}

/** The upstream answered 401 to the gateway's OAuth token. */
class TokenRefused extends Error {
  constructor() {
    super("the upstream refused the gateway's access token (HTTP 401)");
  }
}

/** The session the SDK's transport negotiated, read at each request (it changes on reconnection). */
export interface HttpSession {
  readonly sessionId: string | undefined;
  readonly protocolVersion: string | undefined;
}

/** What the channel says and holds to at most. */
export interface HttpJsonRpcChannelOptions {
  /** The gateway's OAuth token for the upstream, when it gets one (else `headers` authenticate). */
  readonly credentials?: ClientCredentials;
  /** What a 2026-07-28 upstream's requests say of the gateway; `undefined` for a 2025-era session. */
  readonly modern?: ModernClient;
  /** The most bytes of one answer (a JSON body, or one event of an SSE stream). */
  readonly maxResponseBytes: number;
  /** The most connections open at once; further requests wait for one. */
  readonly maxConnections: number;
  /** Where its connections may go: each is checked when it is made, on every address the host resolves to. */
  readonly reach: OutboundPolicy;
}

/** How one request is sent. */
export interface HttpJsonRpcOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** A 2026-07-28 `tools/call`'s parameters marked `x-mcp-header`, sent as `Mcp-Param-*` headers too. */
  readonly headerParams?: readonly ToolHeaderParam[];
  /** The caller's identity at the upstream (`Authorization`), instead of the gateway's own credential. */
  readonly authorization?: string;
}

/**
 * The hot path of an HTTP upstream: one JSON-RPC request POSTed on a pooled keep-alive
 * connection (undici's `Pool`, driven through `dispatch` with a handler: no streams, no
 * `Request`/`Response` objects), its answer read as JSON or as an SSE stream
 * (`JsonRpcAnswerHandler`). The SDK's client keeps the session (initialize or discovery, the GET
 * or listen stream, reconnection) and everything the upstream sends besides the answer is handed
 * to it (`deliver`): notifications, progress, and its requests to the client, which it answers.
 * To a 2026-07-28 upstream (`modern`) each request carries the request envelope and the headers
 * that era requires. Measured: the SDK's own `fetch`-based send cost ~0.8 ms of CPU per call on
 * this machine, `node:http` with a kept-alive agent ~80 µs, this path less again
 * (docs/benchmarks.md, test/bench/gateway.mjs). What an upstream can make it hold is bounded: at
 * most `maxConnections` sockets (the pool queues the other requests), and an answer is read
 * through a byte cap, the request aborted as soon as it passes it.
 */
export class HttpJsonRpcChannel implements AnswerChannel {
  private readonly pool: Pool;
  /** The URL's path and query, as each request names it. */
  private readonly path: string;
  /** The headers every request carries, and the session's, as last read. */
  private readonly fixedHeaders: Readonly<Record<string, string>>;
  private readonly credentials: ClientCredentials | undefined;
  private readonly modern: ModernClient | undefined;
  private readonly maxBytes: number;
  private ids = 0;

  constructor(
    url: URL,
    headers: Readonly<Record<string, string>>,
    private readonly session: () => HttpSession,
    readonly deliver: (message: JSONRPCMessage) => void,
    options: HttpJsonRpcChannelOptions,
  ) {
    const { Pool } = undici();
    // The deadline is the request's own (`timeoutMs`, from send to answer), not undici's idle timers.
    this.pool = new Pool(url.origin, {
      connections: options.maxConnections,
      headersTimeout: 0,
      bodyTimeout: 0,
      connect: guardedConnector(options.reach),
    });
    this.path = `${url.pathname}${url.search}`;
    this.fixedHeaders = {
      ...headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    this.credentials = options.credentials;
    this.modern = options.modern;
    this.maxBytes = options.maxResponseBytes;
  }

  /**
   * Sends `method` and resolves with its result.
   * @param onId told the request's id before it is sent (to cancel it by id)
   * @throws UpstreamRpcError the upstream's JSON-RPC error
   * @throws UpstreamTimeoutError when `timeoutMs` passed
   * @throws Error when the upstream cannot be reached or answers outside the protocol
   * @throws the signal's reason when it aborts
   */
  request(
    method: string,
    params: Record<string, unknown>,
    options: HttpJsonRpcOptions,
    onId?: (id: string) => void,
  ): Promise<Record<string, unknown>> {
    // Not an async function: a request without a token of the gateway's costs no promise more.
    if (!this.credentials || options.authorization) return this.post(method, params, options, onId, undefined);
    return this.withToken(this.credentials, method, params, options, onId);
  }

  /** A request with the gateway's OAuth token, tried once more with a new one when the upstream refuses it. */
  private async withToken(
    credentials: ClientCredentials,
    method: string,
    params: Record<string, unknown>,
    options: HttpJsonRpcOptions,
    onId?: (id: string) => void,
  ): Promise<Record<string, unknown>> {
    try {
      return await this.post(method, params, options, onId, await credentials.token());
    } catch (error) {
      // A token the upstream no longer takes (revoked, keys rotated): one more try with a new one.
      if (!(error instanceof TokenRefused)) throw error;
      credentials.invalidate();
      return this.post(method, params, options, onId, await credentials.token());
    }
  }

  /** Ends the kept-alive connections (requests in flight fail). */
  close(): void {
    void this.pool.destroy().catch(() => undefined);
  }

  private post(
    method: string,
    params: Record<string, unknown>,
    options: HttpJsonRpcOptions,
    onId: ((id: string) => void) | undefined,
    token: string | undefined,
  ): Promise<Record<string, unknown>> {
    if (options.signal?.aborted) return Promise.reject(options.signal.reason as Error);
    const id = `gw-${++this.ids}`;
    onId?.(id);
    const modern = this.modern;
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, params: modern ? withEnvelope(params, modern) : params });
    const headers = this.headersOf(method, params, options, token);
    const limits = {
      maxBytes: this.maxBytes,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      asCaller: options.authorization !== undefined,
    };
    return new Promise((resolve, reject) => {
      const handler = new JsonRpcAnswerHandler(id, this, limits, resolve, reject);
      this.pool.dispatch({ path: this.path, method: 'POST', headers, body }, handler);
    });
  }

  /** @internal The error an HTTP status outside 2xx stands for (`JsonRpcAnswerHandler` asks). */
  statusError(status: number, asCaller: boolean): Error {
    if (status === 401 && asCaller) return new CallerCredentialRefused();
    if (status === 401 && this.credentials) return new TokenRefused();
    return new Error(`the upstream answered HTTP ${status}`);
  }

  /** The request's headers: the fixed ones, the session's or the 2026-07-28 era's, and its credential. */
  private headersOf(
    method: string,
    params: Record<string, unknown>,
    options: HttpJsonRpcOptions,
    token: string | undefined,
  ): Dispatcher.DispatchOptions['headers'] {
    const headers: Record<string, string> = { ...this.fixedHeaders };
    if (this.modern)
      Object.assign(headers, modernHeaders(method, params, this.modern.protocolVersion, options.headerParams));
    else {
      const { sessionId, protocolVersion } = this.session();
      if (sessionId) headers['mcp-session-id'] = sessionId;
      if (protocolVersion) headers['mcp-protocol-version'] = protocolVersion;
    }
    if (token) headers.authorization = `Bearer ${token}`;
    if (options.authorization) headers.authorization = options.authorization;
    return headers;
  }
}
