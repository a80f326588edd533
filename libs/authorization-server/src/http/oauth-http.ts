import type { ServerResponse } from 'node:http';
import type { NodeRequest } from '#libs/core';

/** The largest request body the authorization server reads (bytes), unless an endpoint asks for less. */
const LIMIT = 64 * 1024;

/** Thrown when a request body is larger than the authorization server reads. */
export class BodyTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the request body is larger than ${limit / 1024} KiB`);
  }
}

/**
 * The body of a POST as form fields (JSON objects too: registration), at most `limit` bytes: the
 * one the platform parsed (Express's body parsers run before every route, with limits of their
 * own), measured by its declared length or, without one, by its size as JSON; or read here,
 * refused as soon as it passes the limit.
 * @throws BodyTooLarge
 */
export async function readParams(
  req: NodeRequest,
  limit = LIMIT,
): Promise<{ form: URLSearchParams; json: Record<string, unknown> }> {
  let text: string | undefined;
  let parsed = req.body;
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw new BodyTooLarge(limit);
  if (
    parsed === undefined ||
    (typeof parsed === 'object' && parsed !== null && Object.keys(parsed).length === 0 && !req.readableEnded)
  ) {
    text = await new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) reject(new BodyTooLarge(limit));
        else chunks.push(chunk);
      });
      req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      req.on('error', reject);
    });
    const type = String(req.headers['content-type'] ?? '');
    if (type.startsWith('application/json')) {
      try {
        parsed = JSON.parse(text || '{}');
      } catch {
        parsed = {};
      }
    } else parsed = undefined;
  } else if (Buffer.byteLength(JSON.stringify(parsed) ?? '') > limit) throw new BodyTooLarge(limit);
  if (typeof parsed === 'object' && parsed !== null) {
    const form = new URLSearchParams();
    for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
      for (const item of Array.isArray(value) ? value : [value]) if (typeof item === 'string') form.append(key, item);
    }
    return { form, json: parsed as Record<string, unknown> };
  }
  return { form: new URLSearchParams(text ?? ''), json: {} };
}

/** A JSON answer that no cache keeps (RFC 6749 §5.1). */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res
    .writeHead(status, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      pragma: 'no-cache',
      'x-content-type-options': 'nosniff',
      ...headers,
    })
    .end(JSON.stringify(body));
}

/** A small page for a person whose sign-in cannot go back to the client (an unknown client, a bad redirect URI). */
export function sendErrorPage(res: ServerResponse, status: number, error: string, description: string): void {
  const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  res
    .writeHead(status, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': "default-src 'none'",
      'x-content-type-options': 'nosniff',
    })
    .end(
      `<!doctype html><title>Sign-in failed</title><h1>Sign-in failed</h1><p><code>${escape(error)}</code>: ${escape(description)}</p>`,
    );
}
