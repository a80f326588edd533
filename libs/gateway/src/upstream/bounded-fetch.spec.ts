import { boundedFetch } from './bounded-fetch';
import { UpstreamLimitError } from './upstream-errors';

/** A body sent in the given chunks. */
function body(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

const json = (...chunks: string[]) =>
  new Response(body(...chunks), { status: 200, headers: { 'content-type': 'application/json' } });
const sse = (...chunks: string[]) =>
  new Response(body(...chunks), { status: 200, headers: { 'content-type': 'text/event-stream' } });

describe('boundedFetch', () => {
  it('passes a body within the cap on as it came, with its status and headers', async () => {
    const send = boundedFetch(async () => json('{"a":', '1}'), 16, 4);
    const response = await send('http://upstream/mcp');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.json()).toEqual({ a: 1 });
  });

  it('errors a JSON body at the cap, without reading the rest', async () => {
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(10).fill(0x61));
      },
    });
    const send = boundedFetch(async () => new Response(endless, { status: 200 }), 25, 4);
    const response = await send('http://upstream/mcp');
    await expect(response.text()).rejects.toThrow(UpstreamLimitError);
    expect(pulled).toBeLessThanOrEqual(4);
  });

  it('caps each event of an SSE stream, not the stream: many events pass, one too large fails', async () => {
    const event = (n: number) => `data: {"n":${n}}\n\n`;
    const many = Array.from({ length: 50 }, (_, n) => event(n));
    const send = boundedFetch(async () => sse(...many), 20, 4);
    expect(await (await send('http://upstream/mcp')).text()).toBe(many.join(''));

    // CRLF line ends, an event split across chunks, then one that never ends.
    const crlf = boundedFetch(async () => sse('data: {"n":1}\r', '\n\r\n', `data: ${'x'.repeat(30)}`), 20, 4);
    await expect((await crlf('http://upstream/mcp')).text()).rejects.toThrow(
      'the upstream sent a message of more than 20 bytes (limits.maxResponseBytes)',
    );
  });

  it('keeps at most `connections` requests in flight, each until its body is read', async () => {
    let started = 0;
    const send = boundedFetch(
      async () => {
        started++;
        return json('{}');
      },
      1_000,
      2,
    );
    const first = await send('http://upstream/mcp');
    const second = await send('http://upstream/mcp');
    const third = send('http://upstream/mcp');
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toBe(2);
    await first.text();
    await (await third).text();
    expect(started).toBe(3);
    // A body cancelled gives its turn back; a request given up on while it waits leaves the queue.
    const fourth = await send('http://upstream/mcp');
    await second.body!.cancel();
    const fifth = await send('http://upstream/mcp');
    const aborted = new AbortController();
    const waiting = send('http://upstream/mcp', { signal: aborted.signal });
    const sixth = send('http://upstream/mcp');
    aborted.abort(new Error('given up'));
    await expect(waiting).rejects.toThrow('given up');
    expect(started).toBe(5);
    await fourth.text();
    await (await sixth).text();
    await fifth.text();
    expect(started).toBe(6);
  });
});
