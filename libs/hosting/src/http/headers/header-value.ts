import type { IncomingHttpHeaders } from 'node:http';

/** A header's value once read: its text (decoded if it was Base64-encoded), or why it is unusable. */
export type HeaderValue = { readonly text: string } | { readonly invalid: string };

const PREFIX = '=?base64?';
const SUFFIX = '?=';
/** What a field value may hold (RFC 9110 §5.5): visible ASCII, space and tab. */
const FIELD_VALUE = /^[\t\x20-\x7e]*$/;
/** Canonical Base64 with its padding. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Leading and trailing optional whitespace (OWS), which is not part of a field value. */
const OWS = /^[\t ]+|[\t ]+$/g;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Whether a value starts or ends with a space or tab (cheaper than the replace it spares). */
function hasOws(value: string): boolean {
  if (value === '') return false;
  const first = value.charCodeAt(0);
  const last = value.charCodeAt(value.length - 1);
  return first === 0x20 || first === 0x09 || last === 0x20 || last === 0x09;
}

/** The raw value of a header (names are lower case in Node); repeated headers are joined as HTTP joins them. */
export function rawHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Reads a header value as the 2026-07-28 Streamable HTTP transport encodes it ("Value
 * Encoding"): whitespace around it is dropped; only visible ASCII, space and tab are allowed; a
 * value of the form `=?base64?{Base64}?=` is the Base64 of UTF-8 text (and must be valid Base64
 * of valid UTF-8). Any other value, including one with only half of the markers, is literal.
 * @param sentinel whether the header may carry a Base64 value (`Mcp-Name`, `Mcp-Param-*`)
 */
export function readHeaderValue(raw: string, sentinel: boolean): HeaderValue {
  // Node drops the whitespace around a value it parses itself; only a value set otherwise has any.
  const value = hasOws(raw) ? raw.replace(OWS, '') : raw;
  if (!FIELD_VALUE.test(value)) return { invalid: 'holds characters other than visible ASCII, space and tab' };
  if (!sentinel || value.length < PREFIX.length + SUFFIX.length || !value.startsWith(PREFIX) || !value.endsWith(SUFFIX))
    return { text: value };
  const encoded = value.slice(PREFIX.length, -SUFFIX.length);
  if (!BASE64.test(encoded)) return { invalid: `is not valid Base64 between "${PREFIX}" and "${SUFFIX}"` };
  try {
    return { text: utf8.decode(Buffer.from(encoded, 'base64')) };
  } catch {
    return { invalid: 'is Base64 of something that is not UTF-8 text' };
  }
}
