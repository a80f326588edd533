/**
 * Reads the JSON-RPC messages of an SSE response one at a time, as they arrive (comments and
 * events without data skipped), for streams that stay open: a `subscriptions/listen` answer.
 */
export class SseReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private buffer = '';
  private readonly queue: Record<string, unknown>[] = [];
  private done = false;
  /** A read still under way when a wait timed out: the next wait takes it over. */
  private pending: ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']> | undefined;

  constructor(response: Response) {
    if (!response.body) throw new Error(`no body to read (HTTP ${response.status})`);
    this.reader = response.body.getReader();
  }

  /** The next message; fails if the stream ends first, or after `timeoutMs`. */
  async next(timeoutMs = 5_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    while (this.queue.length === 0) {
      if (this.done) throw new Error('the stream ended');
      if (Date.now() > deadline) throw new Error('no message in time');
      await this.read(deadline - Date.now());
    }
    return this.queue.shift()!;
  }

  /** Resolves with what was left unread once the stream ends; fails after `timeoutMs`. */
  async end(timeoutMs = 5_000): Promise<Record<string, unknown>[]> {
    const deadline = Date.now() + timeoutMs;
    while (!this.done) {
      if (Date.now() > deadline) throw new Error('the stream did not end in time');
      await this.read(deadline - Date.now());
    }
    return this.queue.splice(0);
  }

  /** Lets go of the stream (the client closes it). */
  async cancel(): Promise<void> {
    this.done = true;
    await this.reader.cancel().catch(() => undefined);
  }

  private async read(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
    this.pending ??= this.reader.read();
    const chunk = await Promise.race([this.pending, timeout]);
    clearTimeout(timer);
    if (chunk === 'timeout') return;
    this.pending = undefined;
    if (chunk.done) this.done = true;
    if (chunk.value) this.buffer += this.decoder.decode(chunk.value, { stream: true });
    const events = this.buffer.split('\n\n');
    this.buffer = events.pop() ?? '';
    for (const event of events) {
      const data = event
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
        .join('\n');
      if (data) this.queue.push(JSON.parse(data) as Record<string, unknown>);
    }
  }
}
