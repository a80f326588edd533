/** One JSON-RPC message as it crossed the wire (request, response or notification). */
export type WireMessage = {
  jsonrpc?: string;
  id?: string | number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
};

/** One HTTP exchange a client made: what it sent and, as they arrive, the messages it got back. */
export interface WireExchange {
  httpMethod: string;
  /** The request's headers, names in lower case. */
  headers: Record<string, string>;
  /** The JSON-RPC message posted (none for GET and DELETE). */
  sent?: WireMessage;
  status?: number;
  responseHeaders?: Headers;
  /** Every JSON-RPC message of the answer (a JSON body or the events of an SSE stream), in order. */
  received: WireMessage[];
  /** Settles when the answer's body has ended (or was cut off). */
  ended: Promise<void>;
}

/**
 * A `fetch` to hand to an SDK client transport (v1 and v2 both take one) that records every
 * exchange and passes it through untouched: the client reads the real response while a clone is
 * read here, so a test can check what went over the wire (an `InputRequiredResult`, a
 * `CreateTaskResult`, which server behind a proxy answered) besides what the client made of it.
 */
export class WireTap {
  readonly exchanges: WireExchange[] = [];

  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
    const exchange: WireExchange = {
      httpMethod: init?.method ?? 'GET',
      headers,
      sent: typeof init?.body === 'string' ? (JSON.parse(init.body) as WireMessage) : undefined,
      received: [],
      ended: Promise.resolve(),
    };
    this.exchanges.push(exchange);
    const response = await fetch(input, init);
    exchange.status = response.status;
    exchange.responseHeaders = response.headers;
    exchange.ended = record(response.clone(), exchange.received);
    return response;
  };

  /** The exchanges that posted a request of `method` (and, if given, `params.name`). */
  requests(method: string, name?: string): WireExchange[] {
    return this.exchanges.filter(
      (exchange) => exchange.sent?.method === method && (name === undefined || exchange.sent.params?.name === name),
    );
  }

  /** The JSON-RPC response (result or error) an exchange carried, once its body has ended. */
  static async answer(exchange: WireExchange): Promise<WireMessage | undefined> {
    await exchange.ended;
    return exchange.received.find((message) => message.id !== undefined && message.method === undefined);
  }
}

/** Reads a JSON or SSE body into `into` as it arrives; a body cut off (cancellation) just ends. */
async function record(response: Response, into: WireMessage[]): Promise<void> {
  const type = response.headers.get('content-type') ?? '';
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffered += value;
      if (!type.startsWith('text/event-stream')) continue;
      // An SSE event ends at a blank line; its data lines joined are one JSON-RPC message.
      let end: number;
      while ((end = buffered.search(/\r?\n\r?\n/)) >= 0) {
        const event = buffered.slice(0, end);
        buffered = buffered.slice(end).replace(/^\r?\n\r?\n/, '');
        const data = event
          .split(/\r?\n/)
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n');
        if (data) into.push(JSON.parse(data) as WireMessage);
      }
    }
  } catch {
    return; // the client aborted the request: what arrived before is recorded
  }
  if (type.startsWith('application/json') && buffered.trim()) {
    const parsed = JSON.parse(buffered) as WireMessage | WireMessage[];
    into.push(...(Array.isArray(parsed) ? parsed : [parsed]));
  }
}
