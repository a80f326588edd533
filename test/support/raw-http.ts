import { connect } from 'node:net';

/** What a raw HTTP/1.1 exchange got back. */
export interface RawExchange {
  /** The status line (`HTTP/1.1 413 Payload Too Large`), or `undefined` when none arrived. */
  statusLine: string | undefined;
  status: number | undefined;
  /** Everything the server sent. */
  received: string;
  /** The body bytes the client wrote. */
  written: number;
  /** The socket's error (`ECONNRESET`, `EPIPE`), if it had one. */
  error: string | undefined;
}

/** How a raw request sends its body. */
export type RawBody =
  /** This text, with its `Content-Length`. */
  | { text: string }
  /** `length` bytes of filler (spaces) with `Content-Length`. */
  | { length: number }
  /** `bytes` of filler in chunks (`Transfer-Encoding: chunked`), then the last chunk. */
  | { chunked: number }
  /** Chunks for as long as the server reads them (never the last chunk). */
  | { endless: true };

const CHUNK = Buffer.alloc(64 * 1024, 0x20);
const CRLF = Buffer.from('\r\n');

/**
 * Sends one request on a raw TCP connection to loopback — what a client library would not send:
 * an absolute-form request line, a body far beyond the server's limit — and reads the answer while
 * the body is still being written (as a client whose request the server refuses early must).
 * Resolves when the connection closed: send `connection: close` in `head`, so that the server
 * closes it once it has answered.
 * @param head the request line and headers, without the blank line that ends them
 */
export function rawExchange(port: number, head: string, body?: RawBody): Promise<RawExchange> {
  return new Promise((resolve) => {
    const result: RawExchange = {
      statusLine: undefined,
      status: undefined,
      received: '',
      written: 0,
      error: undefined,
    };
    const text = body !== undefined && 'text' in body ? Buffer.from(body.text) : undefined;
    const length = text?.length ?? (body !== undefined && 'length' in body ? body.length : undefined);
    const framing =
      body === undefined
        ? ''
        : length !== undefined
          ? `content-length: ${length}\r\n`
          : 'transfer-encoding: chunked\r\n';
    const socket = connect(port, '127.0.0.1');
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      const line = result.received.split('\r\n', 1)[0];
      result.statusLine = /^HTTP\/1\.1 \d{3}/.test(line) ? line : undefined;
      result.status = result.statusLine ? Number(result.statusLine.slice(9, 12)) : undefined;
      socket.destroy();
      resolve(result);
    };
    socket.setEncoding('latin1');
    socket.on('data', (text: string) => (result.received += text));
    socket.on('error', (error: NodeJS.ErrnoException) => (result.error ??= error.code ?? error.message));
    socket.on('close', finish);
    socket.on('end', () => socket.end());
    const total =
      length ?? (body !== undefined && 'chunked' in body ? body.chunked : body === undefined ? 0 : Infinity);
    const chunked = body !== undefined && length === undefined;
    const writeBody = () => {
      // Writes while the socket takes them, then waits for it to drain: as fast as the server reads.
      while (!socket.destroyed && result.written < total) {
        const piece = CHUNK.subarray(0, Math.min(CHUNK.length, total - result.written));
        result.written += piece.length;
        const more = socket.write(
          chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, CRLF]) : piece,
        );
        if (!more) return void socket.once('drain', writeBody);
      }
      if (!socket.destroyed && chunked && Number.isFinite(total)) socket.write('0\r\n\r\n');
    };
    socket.on('connect', () => {
      socket.write(`${head}\r\n${framing}\r\n`);
      if (text === undefined) return writeBody();
      result.written = text.length;
      socket.write(text);
    });
  });
}
