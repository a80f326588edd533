import type { Dispatcher } from 'undici';
import { JsonRpcAnswerHandler, type AnswerLimits } from './json-rpc-answer.handler';
import { UpstreamLimitError, UpstreamRpcError, UpstreamTimeoutError } from './upstream-errors';

/** A controller as undici gives one, recording its abort. */
function controller(): Dispatcher.DispatchController & { abortedWith?: Error } {
  const state: { abortedWith?: Error } = {};
  return Object.assign(state, {
    aborted: false,
    paused: false,
    reason: null,
    abort(reason: Error) {
      state.abortedWith = reason;
    },
    pause() {},
    resume() {},
  }) as Dispatcher.DispatchController & { abortedWith?: Error };
}

/** A handler for request `gw-1`, its settled value, and what it delivered. */
function exchange(limits: Partial<AnswerLimits> = {}) {
  const delivered: unknown[] = [];
  let settled: { result?: unknown; error?: unknown } | undefined;
  const handler = new JsonRpcAnswerHandler(
    'gw-1',
    {
      statusError: (status, asCaller) => new Error(`HTTP ${status}${asCaller ? ' (caller)' : ''}`),
      deliver: (message) => delivered.push(message),
    },
    { maxBytes: 1_000, timeoutMs: 5_000, asCaller: false, ...limits },
    (result) => (settled = { result }),
    (error) => (settled = { error }),
  );
  const control = controller();
  handler.onRequestStart(control);
  const respond = (status: number, type: string, ...chunks: string[]) => {
    handler.onResponseStart(control, status, { 'content-type': type });
    for (const chunk of chunks) handler.onResponseData(control, Buffer.from(chunk));
    handler.onResponseEnd();
  };
  return { handler, control, respond, delivered, settled: () => settled };
}

describe('JsonRpcAnswerHandler', () => {
  afterEach(() => jest.useRealTimers());

  it('resolves with the result of a JSON answer received in chunks, the other messages of a batch delivered', () => {
    const { respond, settled, delivered, control } = exchange();
    respond(
      200,
      'application/json',
      '[{"jsonrpc":"2.0","method":"notifications/message","params":{}},',
      '{"jsonrpc":"2.0","id":"gw-1","result":{"content":[{"type":"text","text":"é"}]}}]',
    );
    expect(settled()).toEqual({ result: { content: [{ type: 'text', text: 'é' }] } });
    expect(delivered).toEqual([{ jsonrpc: '2.0', method: 'notifications/message', params: {} }]);
    expect(control.abortedWith).toBeUndefined();
  });

  it("rejects with the upstream's JSON-RPC error", () => {
    const { respond, settled } = exchange();
    respond(200, 'application/json', '{"jsonrpc":"2.0","id":"gw-1","error":{"code":-32602,"message":"no such tool"}}');
    expect(settled()?.error).toEqual(new UpstreamRpcError(-32602, 'no such tool'));
  });

  it('reads an SSE stream whose events span chunks, delivering what comes before the answer', () => {
    const { respond, settled, delivered } = exchange();
    respond(
      200,
      'text/event-stream',
      'id: 1\ndata: {"jsonrpc":"2.0","method":"notifications/progress",',
      '"params":{"progress":1}}\n\nid: 2\r\ndata: {"jsonrpc":"2.0","id":"gw-1",\r\ndata: "result":{"ok":true}}\r\n\r\n',
    );
    expect(delivered).toEqual([{ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } }]);
    expect(settled()).toEqual({ result: { ok: true } });
  });

  it('aborts a JSON body past maxBytes as it arrives', () => {
    const { handler, control, settled } = exchange({ maxBytes: 10 });
    handler.onResponseStart(control, 200, { 'content-type': 'application/json' });
    handler.onResponseData(control, Buffer.from('{"jsonrpc":'));
    expect(settled()?.error).toEqual(new UpstreamLimitError(10));
    expect(control.abortedWith).toEqual(new UpstreamLimitError(10));
  });

  it('counts an SSE stream by event: many small events pass, one large event is aborted', () => {
    const small = exchange({ maxBytes: 80 });
    const note = 'data: {"jsonrpc":"2.0","method":"notifications/message","params":{}}\n\n';
    small.respond(200, 'text/event-stream', note, note, note, 'data: {"jsonrpc":"2.0","id":"gw-1","result":{}}\n\n');
    expect(small.settled()).toEqual({ result: {} });
    const large = exchange({ maxBytes: 80 });
    large.handler.onResponseStart(large.control, 200, { 'content-type': 'text/event-stream' });
    large.handler.onResponseData(
      large.control,
      Buffer.from(`data: {"jsonrpc":"2.0","id":"gw-1","result":{"text":"${'x'.repeat(100)}`),
    );
    expect(large.settled()?.error).toEqual(new UpstreamLimitError(80));
    expect(large.control.abortedWith).toBeDefined();
  });

  it("takes a 400 with a JSON-RPC error for the upstream's refusal, and another status for statusError's", () => {
    const refused = exchange();
    refused.respond(
      400,
      'application/json',
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32020,"message":"Header mismatch"}}',
    );
    expect(refused.settled()?.error).toEqual(new UpstreamRpcError(-32020, 'Header mismatch'));
    const unauthorized = exchange({ asCaller: true });
    unauthorized.respond(401, 'text/plain', 'no');
    expect(unauthorized.settled()?.error).toEqual(new Error('HTTP 401 (caller)'));
    const plain400 = exchange();
    plain400.respond(400, 'application/json', 'not json');
    expect(plain400.settled()?.error).toEqual(new Error('HTTP 400'));
  });

  it('rejects an answer without a response to the request, and a stream that ends before it', () => {
    const json = exchange();
    json.respond(200, 'application/json', '{"jsonrpc":"2.0","id":"gw-9","result":{}}');
    expect(json.settled()?.error).toEqual(new Error('the upstream answered without a response to the request'));
    const sse = exchange();
    sse.respond(200, 'text/event-stream', ': priming\n\n');
    expect(sse.settled()?.error).toEqual(new Error('the upstream closed the stream before answering'));
  });

  it('times out after timeoutMs, and aborts with the signal, removing its listener once settled', () => {
    jest.useFakeTimers();
    const slow = exchange({ timeoutMs: 50 });
    jest.advanceTimersByTime(50);
    expect(slow.settled()?.error).toEqual(new UpstreamTimeoutError(50));
    expect(slow.control.abortedWith).toEqual(new UpstreamTimeoutError(50));

    const cancellation = new AbortController();
    const cancelled = exchange({ signal: cancellation.signal });
    cancellation.abort(new Error('cancelled by the caller'));
    expect(cancelled.settled()?.error).toEqual(new Error('cancelled by the caller'));

    const signal = new AbortController().signal;
    const removed = jest.spyOn(signal, 'removeEventListener');
    exchange({ signal }).respond(200, 'application/json', '{"jsonrpc":"2.0","id":"gw-1","result":{}}');
    expect(removed).toHaveBeenCalledWith('abort', expect.any(JsonRpcAnswerHandler));
    expect(jest.getTimerCount()).toBe(0);
  });
});
