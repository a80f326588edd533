import type { ServerResponse } from 'node:http';
import { SSE_SECURITY_HEADERS } from '#libs/security';

const KEEP_ALIVE_MS = 15_000;

/**
 * A Server-Sent Events stream on an HTTP response. Sends a comment every 15 s so that proxies
 * and clients keep long streams open.
 */
export class SseStream {
  private readonly keepAlive: NodeJS.Timeout;

  constructor(
    private readonly res: ServerResponse,
    headers: Record<string, string>,
  ) {
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      ...SSE_SECURITY_HEADERS,
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      ...headers,
    });
    res.flushHeaders();
    this.keepAlive = setInterval(() => this.res.write(': keep-alive\n\n'), KEEP_ALIVE_MS).unref();
    res.once('close', () => clearInterval(this.keepAlive));
  }

  get open(): boolean {
    return !this.res.writableEnded && !this.res.destroyed;
  }

  send(message: string): void {
    if (this.open) this.res.write(`event: message\ndata: ${message}\n\n`);
  }

  /** An event with an id, so that the client can resume after it. */
  event(id: string, data: string): void {
    if (this.open) this.res.write(data ? `id: ${id}\nevent: message\ndata: ${data}\n\n` : `id: ${id}\ndata: \n\n`);
  }

  /** The priming event of a resumable stream (SEP-1699): its first id and the reconnection delay. */
  prime(id: string, retryMs: number): void {
    if (this.open) this.res.write(`id: ${id}\nretry: ${retryMs}\ndata: \n\n`);
  }

  end(): void {
    clearInterval(this.keepAlive);
    if (this.open) this.res.end();
  }
}
