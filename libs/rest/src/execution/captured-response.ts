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

/** What one captured response holds while the application writes it. */
interface CaptureState {
  readonly request: IncomingMessage;
  readonly onEnd: (response: CapturedResponse) => void;
  readonly chunks: Buffer[];
  headersSent: boolean;
  ended: boolean;
  abandoned: boolean;
}

/** Where a captured response keeps its state (an own property: it survives Express's prototype swap). */
const CAPTURE = Symbol('nest-mcp-host/captured-response');

type Captured = ServerResponse & { [CAPTURE]: CaptureState };

function append(state: CaptureState, chunk: unknown, encoding?: BufferEncoding): void {
  if (chunk === undefined || chunk === null) return;
  if (typeof chunk === 'string') state.chunks.push(Buffer.from(chunk, encoding ?? 'utf8'));
  else if (chunk instanceof Uint8Array)
    state.chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  else throw new TypeError('The "chunk" argument must be of type string or an instance of Buffer or Uint8Array');
}

function writeHead(
  this: Captured,
  statusCode: number,
  reasonOrHeaders?: string | OutgoingHttpHeaders | readonly unknown[],
  maybeHeaders?: OutgoingHttpHeaders | readonly unknown[],
): ServerResponse {
  const state = this[CAPTURE];
  if (state.headersSent) return this;
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
  state.headersSent = true;
  return this;
}

function flushHeaders(this: Captured): void {
  if (!this[CAPTURE].headersSent) this.writeHead(this.statusCode);
}

function write(
  this: Captured,
  chunk: unknown,
  encodingOrCallback?: BufferEncoding | Callback,
  callback?: Callback,
): boolean {
  const state = this[CAPTURE];
  const done = typeof encodingOrCallback === 'function' ? encodingOrCallback : callback;
  if (state.ended || state.abandoned) {
    if (done) process.nextTick(done, new Error('write after end'));
    return false;
  }
  if (!state.headersSent) this.writeHead(this.statusCode);
  append(state, chunk, typeof encodingOrCallback === 'string' ? encodingOrCallback : undefined);
  if (done) process.nextTick(done);
  return true;
}

function end(
  this: Captured,
  chunkOrCallback?: unknown,
  encodingOrCallback?: BufferEncoding | Callback,
  callback?: Callback,
): ServerResponse {
  const state = this[CAPTURE];
  if (state.ended || state.abandoned) return this;
  let chunk = chunkOrCallback;
  let done = callback;
  if (typeof chunkOrCallback === 'function') [chunk, done] = [undefined, chunkOrCallback as Callback];
  else if (typeof encodingOrCallback === 'function') done = encodingOrCallback;
  if (!state.headersSent) this.writeHead(this.statusCode);
  const head = state.request.method === 'HEAD';
  // HEAD answers carry no body, whatever the handler wrote (as Node does on the wire).
  if (!head) append(state, chunk, typeof encodingOrCallback === 'string' ? encodingOrCallback : undefined);
  state.ended = true;
  // A data property of OutgoingMessage (deprecated alias of writableEnded) that `on-finished` reads.
  (this as { finished: boolean }).finished = true;
  const { chunks } = state;
  const captured: CapturedResponse = {
    status: this.statusCode,
    headers: this.getHeaders(),
    body: head || chunks.length === 0 ? EMPTY : chunks.length === 1 ? chunks[0] : Buffer.concat(chunks),
  };
  process.nextTick(finished, this, done, captured);
  return this;
}

/** After `end()`, as Node emits them: `finish`, then `close`; then the capture's `onEnd`. */
function finished(response: Captured, done: Callback | undefined, captured: CapturedResponse): void {
  response.emit('prefinish');
  response.emit('finish');
  done?.();
  response.emit('close');
  response[CAPTURE].onEnd(captured);
}

const EMPTY = Buffer.alloc(0);

// What Node derives from the socket's writes, derived from the capture's state (shared descriptors).
const HEADERS_SENT: PropertyDescriptor = {
  get(this: Captured) {
    return this[CAPTURE].headersSent;
  },
  configurable: true,
};
const WRITABLE_ENDED: PropertyDescriptor = {
  get(this: Captured) {
    return this[CAPTURE].ended;
  },
  configurable: true,
};

/**
 * A real `ServerResponse` for `request` whose output is kept in memory instead of being written
 * to a socket, and `onEnd` called once with it when the application ends the response.
 *
 * `writeHead`, `write`, `end` and `flushHeaders` are replaced on the instance: Express swaps the
 * response's prototype for its own (which inherits Node's), so a prototype-level override would be
 * lost, while own properties stay. They are functions shared by every capture (the state is an own
 * property too), so a call allocates no closures. Everything else (`setHeader`, `getHeaders`,
 * Express's `send` and `json`, `pipe` into it) is Node's and Express's own code. Like Node, it
 * emits `finish` then `close` after `end()`, so `on-finished` listeners, Nest's stream handling
 * and interceptors waiting on the response complete.
 */
export function captureResponse(
  request: IncomingMessage,
  socket: Socket,
  onEnd: (response: CapturedResponse) => void,
): ResponseCapture {
  const response = new ServerResponse(request) as Captured;
  const state: CaptureState = { request, onEnd, chunks: [], headersSent: false, ended: false, abandoned: false };
  response[CAPTURE] = state;
  // Node reads the socket from here (e.g. `writableFinished`, `on-finished`); it is never written to.
  (response as { socket: Socket | null }).socket = socket;
  Object.defineProperty(response, 'headersSent', HEADERS_SENT);
  Object.defineProperty(response, 'writableEnded', WRITABLE_ENDED);
  const node = response as ServerResponse;
  node.writeHead = writeHead as ServerResponse['writeHead'];
  node.flushHeaders = flushHeaders as ServerResponse['flushHeaders'];
  node.write = write as ServerResponse['write'];
  node.end = end as ServerResponse['end'];
  return { response, abandon: abandon.bind(undefined, response) };
}

/** Stops capturing: later writes are dropped, `close` is emitted, `onEnd` is never called. */
function abandon(response: Captured): void {
  const state = response[CAPTURE];
  if (state.ended || state.abandoned) return;
  state.abandoned = true;
  response.emit('close');
}
