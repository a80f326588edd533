import { isJsonMediaType } from './rest-http-outcome';

/** A request body as bytes, with the media type it is sent as. */
export interface EncodedBody {
  readonly contentType: string;
  readonly bytes: Buffer;
}

/**
 * Encodes the body of `RestRequestParts` for the wire: JSON unless the operation's media type
 * says form (`application/x-www-form-urlencoded`, from an object) or text (`text/*`, from a
 * string). `undefined` when there is no body.
 */
export function encodeRequestBody(body: unknown, contentType: string | undefined): EncodedBody | undefined {
  if (body === undefined) return undefined;
  const type = contentType ?? 'application/json';
  const mediaType = type.split(';')[0].trim().toLowerCase();
  if (mediaType === 'application/x-www-form-urlencoded' && isRecord(body)) {
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(body)) {
      if (value === undefined || value === null) continue;
      for (const item of Array.isArray(value) ? value : [value])
        form.append(name, typeof item === 'object' ? JSON.stringify(item) : String(item));
    }
    return { contentType: type, bytes: Buffer.from(form.toString(), 'utf8') };
  }
  if (mediaType.startsWith('text/') && typeof body === 'string') return { contentType: type, bytes: Buffer.from(body) };
  // Anything else travels as JSON, declared as such unless the operation named a JSON type of its own.
  return {
    contentType: isJsonMediaType(type) ? type : 'application/json',
    bytes: Buffer.from(JSON.stringify(body), 'utf8'),
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
