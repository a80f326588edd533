import type { ServerResponse } from 'node:http';

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A page of the connect flow: what happened, in a sentence; nothing runs on it, and no other site frames it. */
export function sendPage(
  res: ServerResponse,
  status: number,
  title: string,
  text: string,
  headers: Record<string, string> = {},
): void {
  res
    .writeHead(status, {
      ...headers,
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    })
    .end(`<!doctype html><title>${escape(title)}</title><h1>${escape(title)}</h1><p>${escape(text)}</p>`);
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res
    .writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' })
    .end(JSON.stringify(body));
}
