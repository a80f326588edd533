import { type IncomingMessage, type OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

type Callback = (error?: Error | null) => void;

/** What a captured response ended with. */
export interface CapturedResponse {
  readonly status: number;
  readonly headers: OutgoingHttpHeaders;
  readonly body: Buffer;
}

/** A response whose output is captured, and the means to abandon it. */
export interface ResponseCapture {
  readonly response: ServerResponse;
  /** Stops capturing: later writes are dropped, `close` is emitted, `onEnd` is never called. */
  abandon(): void;
}

/**
 * A real `ServerResponse` for `request` whose output is kept in memory instead of being written
 * to a socket, and `onEnd` called once with it when the application ends the response.
 *
 * `writeHead`, `write`, `end` and `flushHeaders` are replaced on the instance: Express swaps the
 * response's prototype for its own (which inherits Node's), so a prototype-level override would be
 * lost, while own properties stay. Everything else (`setHeader`, `getHeaders`, Express's `send` and
 * `json`, `pipe` into it) is Node's and Express's own code. Like Node, it emits `finish` then
 * `close` after `end()`, so `on-finished` listeners, Nest's stream handling and interceptors
 * waiting on the response complete.
 */
export function captureResponse(
  request: IncomingMessage,
  socket: Socket,
  onEnd: (response: CapturedResponse) => void,
): ResponseCapture {
  const response = new ServerResponse(request);
  const chunks: Buffer[] = [];
  let headersSent = false;
  let ended = false;
  let abandoned = false;

  // Node reads the socket from here (e.g. `writableFinished`, `on-finished`); it is never written to.
  (response as { socket: Socket | null }).socket = socket;
  Object.defineProperty(response, 'headersSent', { get: () => headersSent, configurable: true });
  Object.defineProperty(response, 'writableEnded', { get: () => ended, configurable: true });

  const append = (chunk: unknown, encoding?: BufferEncoding) => {
    if (chunk === undefined || chunk === null) return;
    if (typeof chunk === 'string') chunks.push(Buffer.from(chunk, encoding ?? 'utf8'));
    else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    else throw new TypeError('The "chunk" argument must be of type string or an instance of Buffer or Uint8Array');
  };

  response.writeHead = function writeHead(
    this: ServerResponse,
    statusCode: number,
    reasonOrHeaders?: string | OutgoingHttpHeaders | readonly unknown[],
    maybeHeaders?: OutgoingHttpHeaders | readonly unknown[],
  ): ServerResponse {
    if (headersSent) return this;
    const headers = typeof reasonOrHeaders === 'string' ? maybeHeaders : reasonOrHeaders;
    if (typeof reasonOrHeaders === 'string') this.statusMessage = reasonOrHeaders;
    this.statusCode = statusCode;
    if (Array.isArray(headers)) {
      // Node's raw form: [name, value, name, value, …]
      for (let i = 0; i + 1 < headers.length; i += 2) this.appendHeader(String(headers[i]), String(headers[i + 1]));
    } else if (headers) {
      for (const [name, value] of Object.entries(headers))
        if (value !== undefined) this.setHeader(name, value as string | number | readonly string[]);
    }
    headersSent = true;
    return this;
  } as ServerResponse['writeHead'];

  response.flushHeaders = function flushHeaders(this: ServerResponse): void {
    if (!headersSent) this.writeHead(this.statusCode);
  };

  response.write = function write(
    this: ServerResponse,
    chunk: unknown,
    encodingOrCallback?: BufferEncoding | Callback,
    callback?: Callback,
  ): boolean {
    const done = typeof encodingOrCallback === 'function' ? encodingOrCallback : callback;
    if (ended || abandoned) {
      if (done) process.nextTick(done, new Error('write after end'));
      return false;
    }
    if (!headersSent) this.writeHead(this.statusCode);
    append(chunk, typeof encodingOrCallback === 'string' ? encodingOrCallback : undefined);
    if (done) process.nextTick(done);
    return true;
  } as ServerResponse['write'];

  response.end = function end(
    this: ServerResponse,
    chunkOrCallback?: unknown,
    encodingOrCallback?: BufferEncoding | Callback,
    callback?: Callback,
  ): ServerResponse {
    if (ended || abandoned) return this;
    let chunk = chunkOrCallback;
    let done = callback;
    if (typeof chunkOrCallback === 'function') [chunk, done] = [undefined, chunkOrCallback as Callback];
    else if (typeof encodingOrCallback === 'function') done = encodingOrCallback;
    if (!headersSent) this.writeHead(this.statusCode);
    // HEAD answers carry no body, whatever the handler wrote (as Node does on the wire).
    if (request.method !== 'HEAD')
      append(chunk, typeof encodingOrCallback === 'string' ? encodingOrCallback : undefined);
    ended = true;
    // A data property of OutgoingMessage (deprecated alias of writableEnded) that `on-finished` reads.
    (this as { finished: boolean }).finished = true;
    const captured: CapturedResponse = {
      status: this.statusCode,
      headers: this.getHeaders(),
      body: request.method === 'HEAD' ? Buffer.alloc(0) : Buffer.concat(chunks),
    };
    process.nextTick(() => {
      this.emit('prefinish');
      this.emit('finish');
      done?.();
      this.emit('close');
      onEnd(captured);
    });
    return this;
  } as ServerResponse['end'];

  return {
    response,
    abandon: () => {
      if (ended || abandoned) return;
      abandoned = true;
      response.emit('close');
    },
  };
}
