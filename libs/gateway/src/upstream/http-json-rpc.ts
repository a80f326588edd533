import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { UpstreamRpcError, UpstreamTimeoutError } from './upstream-errors';
import type { ToolHeaderParam } from '#libs/catalog';
import type { ClientCredentials } from './client-credentials';
import { modernHeaders, withEnvelope, type ModernClient } from './modern-request';

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

/** How one request is sent. */
export interface HttpJsonRpcOptions {
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** A 2026-07-28 `tools/call`'s parameters marked `x-mcp-header`, sent as `Mcp-Param-*` headers too. */
  readonly headerParams?: readonly ToolHeaderParam[];
}

/**
 * The hot path of an HTTP upstream: one JSON-RPC request POSTed on a kept-alive `node:http`
 * connection, its answer read as JSON or as an SSE stream. The SDK's client keeps the session
 * (initialize or discovery, the GET or listen stream, reconnection) and everything the upstream
 * sends besides the answer is handed to it (`deliver`): notifications, progress, and its
 * requests to the client, which it answers. To a 2026-07-28 upstream (`modern`) each request
 * carries the request envelope and the headers that era requires. Measured: the SDK's own `fetch`-based send cost ~0.8 ms of CPU per call on
 * this machine (web streams, an abort listener per request on one shared signal); this path
 * costs a small fraction of that (docs/benchmarks.md, test/bench/gateway.mjs).
 */
export class HttpJsonRpcChannel {
  private readonly agent: Agent;
  private readonly send: typeof httpRequest;
  private ids = 0;

  constructor(
    private readonly url: URL,
    private readonly headers: Readonly<Record<string, string>>,
    private readonly session: () => HttpSession,
    private readonly deliver: (message: JSONRPCMessage) => void,
    /** The gateway's OAuth token for the upstream, when it gets one (else `headers` authenticate). */
    private readonly credentials?: ClientCredentials,
    /** What a 2026-07-28 upstream's requests say of the gateway; `undefined` for a 2025-era session. */
    private readonly modern?: ModernClient,
  ) {
    const https = url.protocol === 'https:';
    this.agent = https ? new HttpsAgent({ keepAlive: true }) : new Agent({ keepAlive: true });
    this.send = https ? (httpsRequest as unknown as typeof httpRequest) : httpRequest;
  }

  /**
   * Sends `method` and resolves with its result.
   * @param onId told the request's id before it is sent (to cancel it by id)
   * @throws UpstreamRpcError the upstream's JSON-RPC error
   * @throws UpstreamTimeoutError when `timeoutMs` passed
   * @throws Error when the upstream cannot be reached or answers outside the protocol
   * @throws the signal's reason when it aborts
   */
  async request(
    method: string,
    params: Record<string, unknown>,
    options: HttpJsonRpcOptions,
    onId?: (id: string) => void,
  ): Promise<Record<string, unknown>> {
    if (!this.credentials) return this.post(method, params, options, onId, undefined);
    try {
      return await this.post(method, params, options, onId, await this.credentials.token());
    } catch (error) {
      // A token the upstream no longer takes (revoked, keys rotated): one more try with a new one.
      if (!(error instanceof TokenRefused)) throw error;
      this.credentials.invalidate();
      return this.post(method, params, options, onId, await this.credentials.token());
    }
  }

  private post(
    method: string,
    params: Record<string, unknown>,
    options: HttpJsonRpcOptions,
    onId: ((id: string) => void) | undefined,
    token: string | undefined,
  ): Promise<Record<string, unknown>> {
    const id = `gw-${++this.ids}`;
    onId?.(id);
    const modern = this.modern;
    const body = JSON.stringify({ jsonrpc: '2.0', id, method, params: modern ? withEnvelope(params, modern) : params });
    const { sessionId, protocolVersion } = this.session();
    const headers: Record<string, string | number> = {
      ...this.headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'content-length': Buffer.byteLength(body),
      ...(modern
        ? modernHeaders(method, params, modern.protocolVersion, options.headerParams)
        : {
            ...(sessionId && { 'mcp-session-id': sessionId }),
            ...(protocolVersion && { 'mcp-protocol-version': protocolVersion }),
          }),
      ...(token && { authorization: `Bearer ${token}` }),
    };
    return new Promise((resolve, reject) => {
      let settled = false;
      const finish = (error: unknown, result?: Record<string, unknown>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        if (error) {
          outgoing.destroy();
          reject(error);
        } else resolve(result!);
      };
      const onAbort = () => finish(options.signal!.reason);
      const timer = setTimeout(() => finish(new UpstreamTimeoutError(options.timeoutMs)), options.timeoutMs);
      const outgoing = this.send(this.url, { method: 'POST', agent: this.agent, headers }, (response) =>
        this.read(response, id, finish),
      );
      outgoing.on('error', (error) => finish(error));
      options.signal?.addEventListener('abort', onAbort, { once: true });
      outgoing.end(body);
    });
  }

  /**
   * A request the upstream refused with HTTP 400 and a JSON-RPC error (a header that does not
   * match the body, a revision it does not serve): it answered, and the error says why.
   */
  private readRefusal(
    response: IncomingMessage,
    status: number,
    finish: (error: unknown, result?: Record<string, unknown>) => void,
  ): void {
    let text = '';
    response.on('data', (chunk: string) => (text += chunk));
    response.on('end', () => {
      try {
        const { error } = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; data?: unknown } };
        if (typeof error?.code === 'number' && typeof error.message === 'string')
          return finish(new UpstreamRpcError(error.code, error.message, error.data));
      } catch {
        // not JSON-RPC: the status says it all
      }
      finish(new Error(`the upstream answered HTTP ${status}`));
    });
    response.on('error', (error) => finish(error));
  }

  /** Ends the kept-alive connections. */
  close(): void {
    this.agent.destroy();
  }

  private read(
    response: IncomingMessage,
    id: string,
    finish: (error: unknown, result?: Record<string, unknown>) => void,
  ): void {
    const status = response.statusCode ?? 0;
    const type = String(response.headers['content-type'] ?? '');
    response.setEncoding('utf8');
    if (status === 400 && type.includes('application/json')) return this.readRefusal(response, status, finish);
    if (status < 200 || status >= 300) {
      response.resume();
      return finish(
        status === 401 && this.credentials ? new TokenRefused() : new Error(`the upstream answered HTTP ${status}`),
      );
    }
    const answer = (message: unknown) => {
      const response = message as {
        id?: unknown;
        result?: Record<string, unknown>;
        error?: { code: number; message: string; data?: unknown };
      };
      if (response.id !== id || (!('result' in response) && !('error' in response))) {
        this.deliver(message as JSONRPCMessage);
        return;
      }
      if (response.error)
        return finish(new UpstreamRpcError(response.error.code, response.error.message, response.error.data));
      finish(undefined, response.result ?? {});
    };
    let text = '';
    if (!type.includes('text/event-stream')) {
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        try {
          const parsed = JSON.parse(text) as unknown;
          for (const message of Array.isArray(parsed) ? parsed : [parsed]) answer(message);
          finish(new Error('the upstream answered without a response to the request'));
        } catch (error) {
          finish(error);
        }
      });
      return;
    }
    // SSE: events separated by a blank line; an event's `data:` lines joined are one JSON-RPC message.
    response.on('data', (chunk: string) => {
      text += chunk;
      let end: number;
      while ((end = text.search(/\r?\n\r?\n/)) !== -1) {
        const event = text.slice(0, end);
        text = text.slice(end).replace(/^\r?\n\r?\n/, '');
        const data = event
          .split(/\r?\n/)
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
          .join('\n');
        if (!data) continue;
        try {
          answer(JSON.parse(data));
        } catch (error) {
          finish(error);
        }
      }
    });
    response.on('end', () => finish(new Error('the upstream closed the stream before answering')));
    response.on('error', (error) => finish(error));
  }
}
