import type { OutgoingHttpHeaders } from 'node:http';

/**
 * What an HTTP request answered: its status, headers (lower-case names), raw body and, for a JSON
 * body, its value. `runInProcess` and `runRemote` give one; `toToolResult` maps it to the tool's result.
 *
 * @example
 * ```ts
 * const outcome = await runInProcess(adapter, { method: 'GET', url: '/api/tickets/T-1', headers: {} });
 * if (outcome.status === 200) console.log(outcome.json); // { id: 'T-1', … }
 * ```
 */
export interface RestHttpOutcome {
  readonly status: number;
  /** Lower-case names; a header sent more than once has its values joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  /** The parsed body, when its media type is JSON (`application/json`, `*+json`) and it parses. */
  readonly json?: unknown;
}

/** True for `application/json` and the `+json` structured syntax suffix (RFC 6839), parameters ignored. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  const mediaType = contentType?.split(';')[0].trim().toLowerCase() ?? '';
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

/** Header values as one string each (Node gives numbers and arrays too). */
export function flattenHeaders(headers: OutgoingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return flat;
}

/**
 * An outcome from its parts; a JSON body that does not parse is kept as bytes only (the mapping
 * to a tool result then treats it as text).
 */
export function httpOutcome(status: number, headers: Record<string, string>, body: Buffer): RestHttpOutcome {
  if (body.length === 0 || !isJsonMediaType(headers['content-type'])) return { status, headers, body };
  try {
    return { status, headers, body, json: JSON.parse(body.toString('utf8')) as unknown };
  } catch {
    return { status, headers, body };
  }
}
