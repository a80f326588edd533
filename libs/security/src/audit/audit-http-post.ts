import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { ConnectionOptions } from 'node:tls';

/** Where and how a forwarding sink posts its batches. */
export interface AuditPostTarget {
  url: URL;
  timeoutMs: number;
  /** `node:tls` options for an https URL (a private CA, a client certificate). */
  tls?: ConnectionOptions;
}

/**
 * Posts one body and resolves when the receiver answered 2xx; rejects on any other status, a
 * network error or no whole answer within the timeout (the caller retries the same body).
 */
export function postBatch(target: AuditPostTarget, body: Buffer, headers: Record<string, string>): Promise<void> {
  const { url, timeoutMs, tls } = target;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(body.length) },
        ...(url.protocol === 'https:' && tls),
      },
      (response: IncomingMessage) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (text.length < 300) text += chunk;
        });
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          if (status >= 200 && status < 300) resolve();
          else reject(new Error(`${url.host} answered ${status}${text ? `: ${text.trim().slice(0, 200)}` : ''}`));
        });
        response.on('error', reject);
      },
    );
    request.setTimeout(timeoutMs, () =>
      request.destroy(new Error(`${url.host} gave no answer within ${timeoutMs} ms`)),
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** Problems of a sink's `url` option (an http URL only on loopback, unless allowed). */
export function urlProblems(value: unknown, allowHttp: boolean, example: string): string[] {
  if (typeof value !== 'string') return [`url: give the receiver's URL, e.g. "${example}"`];
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return [`url: "${value}" is not a URL; e.g. "${example}"`];
  }
  if (url.protocol === 'https:') return [];
  if (url.protocol !== 'http:') return [`url: use https (got ${url.protocol})`];
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  return loopback || allowHttp
    ? []
    : [`url: records would cross the network unencrypted; use https, or set allowHttp: true on a trusted network`];
}
