import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * How much of a refused request's body the host reads and drops before it closes the connection
 * (the client's answer is sent already): enough for a client that writes its whole body before it
 * reads — most do — to read its answer instead of a connection reset; a body larger than this is
 * cut, so an endless one costs no more. @internal
 */
export const DRAIN_LIMIT = 64 * 1024 ** 2;

/** How long the host reads a refused body at most, however little of it comes (a slow client is cut). @internal */
export const DRAIN_MS = 10_000;

/**
 * Whether `req` has a body the server has not received whole yet, nor read: one that declares
 * a length or comes in chunks, whose end the parser has not seen. @internal
 */
export function bodyStillComing(req: IncomingMessage): boolean {
  const declared = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  return declared && req.complete !== true && !req.readableEnded;
}

/**
 * Ends `res` — whose answer is written whole already (`Content-Length`, `Connection: close`) —
 * once the rest of `req`'s body has been read and dropped, up to `DRAIN_LIMIT` bytes and
 * `DRAIN_MS`; then the connection closes with nothing unread, which a client that was still
 * writing sees as the end of the answer it reads, not as a reset. Past either bound the
 * connection is cut. @internal
 */
export function endAfterBody(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete || req.readableEnded) return void res.end();
  let dropped = 0;
  const stop = () => {
    clearTimeout(timer);
    req.off('data', count);
    req.off('end', finish);
    req.off('error', cut);
  };
  const finish = () => {
    stop();
    res.end();
  };
  const cut = () => {
    stop();
    // Destroys the connection: what is left of the body is not read.
    req.destroy();
  };
  const count = (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > DRAIN_LIMIT) cut();
  };
  const timer = setTimeout(cut, DRAIN_MS);
  timer.unref();
  req.on('data', count);
  req.once('end', finish);
  req.once('error', cut);
  req.resume();
}
