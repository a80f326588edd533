import { StringDecoder } from 'node:string_decoder';
import type { Dispatcher } from 'undici';
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { UpstreamLimitError, UpstreamRpcError, UpstreamTimeoutError } from './upstream-errors';

/** The blank line that ends an SSE event (`lastIndex` set before each search). */
const EVENT_END = /\r?\n\r?\n/g;

/** How the body of the answer is read. */
type BodyMode = 'json' | 'sse' | 'refusal' | 'ignored';

/** What the handler asks of the channel it reads for. */
export interface AnswerChannel {
  /** The error an HTTP status outside 2xx (but a JSON-RPC refusal) stands for. */
  statusError(status: number, asCaller: boolean): Error;
  /** A message of the upstream's other than the answer (notifications, its requests to the client). */
  deliver(message: JSONRPCMessage): void;
}

/** How long the request may take, and what cancels it. */
export interface AnswerLimits {
  readonly maxBytes: number;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** The request carries its caller's credential (a 401 is the caller's, not the gateway's). */
  readonly asCaller: boolean;
}

/** A timer's callback that needs no closure per request. */
function timedOut(handler: JsonRpcAnswerHandler): void {
  handler.abort(new UpstreamTimeoutError(handler.timeoutMs));
}

/**
 * Reads the answer to one JSON-RPC request as undici hands it over (no streams, no `Response`):
 * a JSON body (one message or a batch), or an SSE stream whose events' `data:` lines are
 * messages, until the one answering `id`; everything else the upstream sends on it is
 * delivered. Bytes are counted as they arrive (the whole JSON body, or the SSE event being
 * received) and the request is aborted as soon as they pass `maxBytes`. A 400 with a JSON-RPC
 * error (a header that does not match the body, a revision the upstream does not serve) is that
 * error; another status outside 2xx is `statusError`'s, its body left unread.
 *
 * It is the request's one object while in flight: it settles the request's promise, holds its
 * deadline (`timeoutMs`, from send to answer) and listens to its signal (as the listener object
 * itself), so that a request allocates no closures on this path.
 */
export class JsonRpcAnswerHandler implements Dispatcher.DispatchHandler {
  readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly signal: AbortSignal | undefined;
  private readonly asCaller: boolean;
  private readonly timer: NodeJS.Timeout;
  private controller: Dispatcher.DispatchController | undefined;
  /** The response ended (or failed): nothing left to abort. */
  private ended = false;
  private settled = false;
  /** Aborted before undici started the request: the request is aborted as it starts. */
  private abortedWith: Error | undefined;
  private mode: BodyMode = 'ignored';
  private chunks: Buffer[] = [];
  private received = 0;
  // SSE only: the text since the last event ended, and where the search for its end resumes.
  private decoder: StringDecoder | undefined;
  private text = '';
  private from = 0;

  constructor(
    private readonly id: string,
    private readonly channel: AnswerChannel,
    limits: AnswerLimits,
    private readonly resolve: (result: Record<string, unknown>) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.maxBytes = limits.maxBytes;
    this.timeoutMs = limits.timeoutMs;
    this.signal = limits.signal;
    this.asCaller = limits.asCaller;
    this.timer = setTimeout(timedOut, limits.timeoutMs, this);
    this.signal?.addEventListener('abort', this, { once: true });
  }

  /** Gives up on the request (its deadline): settled with `reason`, the request aborted. */
  abort(reason: Error): void {
    this.fail(reason);
  }

  /** The signal aborted (the caller's call was cancelled). */
  handleEvent(): void {
    this.fail(this.signal!.reason);
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.abortedWith) controller.abort(this.abortedWith);
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    status: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (this.settled) return;
    const type = String(headers['content-type'] ?? '');
    if (status === 400 && type.includes('application/json')) this.mode = 'refusal';
    else if (status < 200 || status >= 300) this.succeedOrFail(this.channel.statusError(status, this.asCaller), false);
    else if (type.includes('text/event-stream')) {
      this.mode = 'sse';
      this.decoder = new StringDecoder('utf8');
    } else this.mode = 'json';
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.mode === 'ignored') return;
    if (this.mode === 'sse') return this.readEvents(chunk);
    this.received += chunk.length;
    if (this.received > this.maxBytes) return this.fail(new UpstreamLimitError(this.maxBytes));
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    this.ended = true;
    if (this.settled) return;
    if (this.mode === 'sse') return this.fail(new Error('the upstream closed the stream before answering'));
    const chunks = this.chunks;
    const text = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8');
    if (this.mode === 'refusal') return this.readRefusal(text);
    try {
      const parsed = JSON.parse(text) as unknown;
      for (const message of Array.isArray(parsed) ? parsed : [parsed]) this.answer(message);
      // (An error's stack costs microseconds: made only when there is no answer.)
      if (!this.settled) this.fail(new Error('the upstream answered without a response to the request'));
    } catch (error) {
      this.fail(error);
    }
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.ended = true;
    this.succeedOrFail(error, false);
  }

  /** The refusal's JSON-RPC error, or the status when its body is not one. */
  private readRefusal(text: string): void {
    try {
      const { error } = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; data?: unknown } };
      if (typeof error?.code === 'number' && typeof error.message === 'string')
        return this.fail(new UpstreamRpcError(error.code, error.message, error.data));
    } catch {
      // not JSON-RPC: the status says it all
    }
    this.fail(this.channel.statusError(400, this.asCaller));
  }

  /**
   * SSE: events separated by a blank line; an event's `data:` lines joined are one JSON-RPC
   * message. The search for the blank line starts where the previous chunk's did not find one,
   * so a long event is scanned once, not once per chunk.
   */
  private readEvents(chunk: Buffer): void {
    let text = this.text + this.decoder!.write(chunk);
    this.received += chunk.length;
    let ended = false;
    for (;;) {
      EVENT_END.lastIndex = this.from;
      const end = EVENT_END.exec(text);
      if (!end) break;
      ended = true;
      const event = text.slice(0, end.index);
      text = text.slice(end.index + end[0].length);
      this.from = 0;
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
        .join('\n');
      if (!data) continue;
      try {
        this.answer(JSON.parse(data));
      } catch (error) {
        this.fail(error);
      }
    }
    this.text = text;
    // What is left is the start of the next event, all within this chunk when an event ended in it.
    if (ended) this.received = Buffer.byteLength(text);
    if (this.received > this.maxBytes) this.fail(new UpstreamLimitError(this.maxBytes));
    this.from = Math.max(0, text.length - 3);
  }

  /** One message: the answer settles the request; anything else goes to the SDK client. */
  private answer(message: unknown): void {
    const response = message as {
      id?: unknown;
      result?: Record<string, unknown>;
      error?: { code: number; message: string; data?: unknown };
    };
    if (response.id !== this.id || (!('result' in response) && !('error' in response))) {
      this.channel.deliver(message as JSONRPCMessage);
      return;
    }
    if (response.error)
      return this.succeedOrFail(
        new UpstreamRpcError(response.error.code, response.error.message, response.error.data),
        false,
      );
    this.succeedOrFail(undefined, false, response.result ?? {});
  }

  /**
   * Settles with `error` (unless settled already), and stops reading: the request is aborted
   * (its connection closed). A stream read on after its answer stops there too.
   */
  private fail(error: unknown): void {
    if (!this.settled) return this.succeedOrFail(error, true);
    this.mode = 'ignored';
    if (!this.ended) this.controller?.abort(error instanceof Error ? error : new Error(String(error)));
  }

  private succeedOrFail(error: unknown, abort: boolean, result?: Record<string, unknown>): void {
    if (this.settled) return;
    this.settled = true;
    this.chunks = [];
    if (abort) {
      this.mode = 'ignored';
      const reason = error instanceof Error ? error : new Error(String(error));
      if (!this.controller) this.abortedWith = reason;
      else if (!this.ended) this.controller.abort(reason);
    } else if (error !== undefined && this.mode !== 'sse') this.mode = 'ignored';
    clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this);
    if (error !== undefined) this.reject(error);
    else this.resolve(result!);
  }
}
