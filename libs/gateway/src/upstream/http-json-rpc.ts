import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { StringDecoder } from 'node:string_decoder';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { CallerCredentialRefused, UpstreamLimitError, UpstreamRpcError, UpstreamTimeoutError } from './upstream-errors';
import type { ToolHeaderParam } from '#libs/catalog';
import type { ClientCredentials } from './client-credentials';
import { modernHeaders, withEnvelope, type ModernClient } from './modern-request';

/** The blank line that ends an SSE event (`lastIndex` set before each search). */
const EVENT_END = /\r?\n\r?\n/g;

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
 * The hot path of an HTTP upstream: one JSON-RPC request POSTed on a kept-alive `node:http`
 * connection, its answer read as JSON or as an SSE stream. The SDK's client keeps the session
 * (initialize or discovery, the GET or listen stream, reconnection) and everything the upstream
 * sends besides the answer is handed to it (`deliver`): notifications, progress, and its
 * requests to the client, which it answers. To a 2026-07-28 upstream (`modern`) each request
 * carries the request envelope and the headers that era requires. Measured: the SDK's own
 * `fetch`-based send cost ~0.8 ms of CPU per call on this machine (web streams, an abort listener
 * per request on one shared signal); this path costs a small fraction of that
 * (docs/benchmarks.md, test/bench/gateway.mjs). What an upstream can make it hold is bounded: at
 * most `maxConnections` sockets (the agent queues the other requests), and an answer is read
 * through a byte cap, the request aborted as soon as it passes it.
 */
export class HttpJsonRpcChannel {
  private readonly agent: Agent;
  private readonly send: typeof httpRequest;
  private readonly credentials: ClientCredentials | undefined;
  private readonly modern: ModernClient | undefined;
  private readonly maxBytes: number;
  private ids = 0;

  constructor(
    private readonly url: URL,
    private readonly headers: Readonly<Record<string, string>>,
    private readonly session: () => HttpSession,
    private readonly deliver: (message: JSONRPCMessage) => void,
    options: HttpJsonRpcChannelOptions,
  ) {
    const https = url.protocol === 'https:';
    const agent = { keepAlive: true, maxSockets: options.maxConnections };
    this.agent = https ? new HttpsAgent(agent) : new Agent(agent);
    this.send = https ? (httpsRequest as unknown as typeof httpRequest) : httpRequest;
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
  async request(
    method: string,
    params: Record<string, unknown>,
    options: HttpJsonRpcOptions,
    onId?: (id: string) => void,
  ): Promise<Record<string, unknown>> {
    if (!this.credentials || options.authorization) return this.post(method, params, options, onId, undefined);
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
      ...(options.authorization && { authorization: options.authorization }),
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
        this.read(response, id, finish, options.authorization !== undefined),
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
    const decoder = new StringDecoder('utf8');
    let text = '';
    let received = 0;
    response.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > this.maxBytes) return finish(new UpstreamLimitError(this.maxBytes));
      text += decoder.write(chunk);
    });
    response.on('end', () => {
      try {
        const { error } = JSON.parse(text + decoder.end()) as {
          error?: { code?: unknown; message?: unknown; data?: unknown };
        };
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
    asCaller: boolean,
  ): void {
    const status = response.statusCode ?? 0;
    const type = String(response.headers['content-type'] ?? '');
    if (status === 400 && type.includes('application/json')) return this.readRefusal(response, status, finish);
    if (status < 200 || status >= 300) {
      response.resume();
      return finish(
        status === 401 && asCaller
          ? new CallerCredentialRefused()
          : status === 401 && this.credentials
            ? new TokenRefused()
            : new Error(`the upstream answered HTTP ${status}`),
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
    // Bytes are counted as they arrive (the whole JSON body, or the SSE event being received) and
    // decoded as UTF-8 across chunk boundaries, as `setEncoding` would.
    const max = this.maxBytes;
    const decoder = new StringDecoder('utf8');
    let text = '';
    let received = 0;
    if (!type.includes('text/event-stream')) {
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > max) return finish(new UpstreamLimitError(max));
        text += decoder.write(chunk);
      });
      response.on('end', () => {
        try {
          const parsed = JSON.parse(text + decoder.end()) as unknown;
          for (const message of Array.isArray(parsed) ? parsed : [parsed]) answer(message);
          finish(new Error('the upstream answered without a response to the request'));
        } catch (error) {
          finish(error);
        }
      });
      return;
    }
    // SSE: events separated by a blank line; an event's `data:` lines joined are one JSON-RPC message.
    // The search for the blank line starts where the previous chunk's did not find one, so a long
    // event is scanned once, not once per chunk.
    let from = 0;
    response.on('data', (chunk: Buffer) => {
      text += decoder.write(chunk);
      received += chunk.length;
      let ended = false;
      for (;;) {
        EVENT_END.lastIndex = from;
        const end = EVENT_END.exec(text);
        if (!end) break;
        ended = true;
        const event = text.slice(0, end.index);
        text = text.slice(end.index + end[0].length);
        from = 0;
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
      // What is left is the start of the next event, all within this chunk when an event ended in it.
      if (ended) received = Buffer.byteLength(text);
      if (received > max) finish(new UpstreamLimitError(max));
      from = Math.max(0, text.length - 3);
    });
    response.on('end', () => finish(new Error('the upstream closed the stream before answering')));
    response.on('error', (error) => finish(error));
  }
}
