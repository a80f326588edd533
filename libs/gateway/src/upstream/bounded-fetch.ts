import { UpstreamLimitError } from './upstream-errors';

/**
 * Counts the bytes of an SSE stream since its last event ended (a blank line: two line ends in a
 * row, CRLF, LF or CR each), across chunks.
 */
class SseEventMeter {
  private bytes = 0;
  /** Nothing on the current line yet. */
  private lineEmpty = true;
  private afterCr = false;

  /** The bytes of the event being received, once `chunk` is in. */
  add(chunk: Uint8Array): number {
    let lastEnd = -1;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      // The LF of a CRLF: the line ended at the CR.
      if (byte === 0x0a && this.afterCr) {
        this.afterCr = false;
        continue;
      }
      this.afterCr = byte === 0x0d;
      if (byte === 0x0a || byte === 0x0d) {
        if (this.lineEmpty) lastEnd = i;
        this.lineEmpty = true;
      } else this.lineEmpty = false;
    }
    this.bytes = lastEnd === -1 ? this.bytes + chunk.length : chunk.length - lastEnd - 1;
    return this.bytes;
  }
}

/** At most `size` holders at once; the others wait their turn, in order (or until their signal aborts). */
class Slots {
  private taken = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  /** Resolves with the function that gives the slot back (once, however often it is called). */
  async take(signal: AbortSignal | null | undefined): Promise<() => void> {
    if (this.taken >= this.size) {
      signal?.throwIfAborted();
      await new Promise<void>((resolve, reject) => {
        const turn = () => {
          signal?.removeEventListener('abort', abort);
          resolve();
        };
        const abort = () => {
          this.waiting.splice(this.waiting.indexOf(turn), 1);
          reject(signal!.reason);
        };
        this.waiting.push(turn);
        signal?.addEventListener('abort', abort, { once: true });
      });
    }
    this.taken++;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.taken--;
      this.waiting.shift()?.();
    };
  }
}

/**
 * `body` read through a byte cap: the whole body, or each event of an SSE stream, may take at
 * most `maxBytes`; past it the stream errors and the upstream's is cancelled. `done` is called
 * once the body ended, failed or was cancelled.
 */
function cappedBody(
  body: ReadableStream<Uint8Array>,
  sse: boolean,
  maxBytes: number,
  done: () => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const events = sse ? new SseEventMeter() : undefined;
  let received = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: ended, value } = await reader.read();
        if (ended) {
          done();
          return controller.close();
        }
        received = events ? events.add(value) : received + value.length;
        if (received <= maxBytes) return controller.enqueue(value);
        done();
        void reader.cancel().catch(() => undefined);
        controller.error(new UpstreamLimitError(maxBytes));
      } catch (error) {
        done();
        controller.error(error);
      }
    },
    cancel(reason) {
      done();
      return reader.cancel(reason);
    },
  });
}

/**
 * The `fetch` of the SDK client's transport for an HTTP upstream (its handshake, its GET or
 * listen stream, notifications, answers to the upstream's requests), bounded as the gateway's
 * own request path is: at most `connections` requests in flight at once, the others waiting
 * their turn (so at most as many sockets), and every body read through a byte cap (the whole
 * body, or each event of an SSE stream) that errors at `maxBytes` instead of buffering more. A
 * request holds its turn until its body ended, failed or was cancelled (an SSE stream, for as
 * long as it is open).
 */
export function boundedFetch(base: typeof fetch, maxBytes: number, connections: number): typeof fetch {
  const slots = new Slots(connections);
  return async (input, init) => {
    const release = await slots.take(init?.signal);
    let response: Response;
    try {
      response = await base(input, init);
    } catch (error) {
      release();
      throw error;
    }
    if (!response.body) {
      release();
      return response;
    }
    const sse = (response.headers.get('content-type') ?? '').includes('text/event-stream');
    return new Response(cappedBody(response.body, sse, maxBytes, release), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
