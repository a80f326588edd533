import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';

type Contents = ReadResourceResult['contents'][number];

/**
 * Maps what a resource reader returned to a `ReadResourceResult` for `uri`: a string becomes
 * text, a `Buffer`/`Uint8Array` a base64 blob, `{ text }` / `{ blob }` get the URI and MIME type
 * filled in, arrays of those become several contents, `{ contents }` passes through.
 * @throws TypeError for anything else (reported to the client as an internal error).
 */
export function toReadResourceResult(value: unknown, uri: string, mimeType: string | undefined): ReadResourceResult {
  if (typeof value === 'object' && value !== null && Array.isArray((value as ReadResourceResult).contents)) {
    return value as ReadResourceResult;
  }
  const items = Array.isArray(value) ? value : [value];
  return { contents: items.map((item) => toContents(item, uri, mimeType)) };
}

function toContents(value: unknown, uri: string, mimeType: string | undefined): Contents {
  const base = { uri, ...(mimeType !== undefined && { mimeType }) };
  if (typeof value === 'string') return { ...base, text: value };
  if (value instanceof Uint8Array) return { ...base, blob: Buffer.from(value).toString('base64') };
  if (typeof value === 'object' && value !== null && ('text' in value || 'blob' in value)) {
    return { ...base, ...(value as Partial<Contents>) } as Contents;
  }
  throw new TypeError(
    'a resource must return a string, a Buffer, { text } / { blob }, an array of them, or { contents }',
  );
}
