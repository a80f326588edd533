import type { IncomingMessage } from 'node:http';

export class BodyTooLargeError extends Error {}

/** The client closed its connection before its request's body was complete. */
export class ClientGoneError extends Error {}

/** Reads the request body as UTF-8, refusing it as soon as it passes `limit` bytes. */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return Promise.reject(new BodyTooLargeError());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLargeError());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () =>
      resolve(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8')),
    );
    // A body cut short ('aborted', then an ECONNRESET error or only 'close') is the client leaving.
    req.on('error', (error: NodeJS.ErrnoException) =>
      reject(req.complete ? error : new ClientGoneError(error.code ?? error.message)),
    );
    req.on('close', () => {
      if (!req.complete) reject(new ClientGoneError('connection closed mid-body'));
    });
  });
}
