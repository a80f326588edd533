import type { OpenApiMediaType } from './openapi-document';

/** The media type chosen from an OpenAPI `content` map. */
export interface ChosenMediaType {
  /** The key as the document writes it (`application/json; charset=utf-8`). */
  readonly type: string;
  readonly media: OpenApiMediaType;
  /** True for `application/json`, `…+json` and the wildcard `*\/*` (sent and read as JSON). */
  readonly json: boolean;
}

/** `Application/JSON; charset=utf-8` → `application/json`. */
export function essenceOf(mediaType: string): string {
  return mediaType.split(';')[0].trim().toLowerCase();
}

/** True when a body of this media type is JSON (`application/json`, `application/problem+json`). */
export function isJsonMediaType(mediaType: string): boolean {
  const essence = essenceOf(mediaType);
  return essence === 'application/json' || /^[a-z0-9.+-]+\/[a-z0-9.-]+\+json$/.test(essence);
}

/**
 * The media type to use from a `content` map: `application/json` first, then a `+json` type,
 * then `*\/*` (what springdoc writes for "any": JSON then), else the first one listed (`json: false`).
 * `undefined` when the map is empty.
 */
export function chooseMediaType(content: unknown): ChosenMediaType | undefined {
  if (typeof content !== 'object' || content === null) return undefined;
  const entries = Object.entries(content as Record<string, OpenApiMediaType>).filter(
    ([, media]) => typeof media === 'object' && media !== null,
  );
  const pick =
    entries.find(([type]) => essenceOf(type) === 'application/json') ??
    entries.find(([type]) => isJsonMediaType(type)) ??
    entries.find(([type]) => essenceOf(type) === '*/*');
  if (pick) return { type: pick[0], media: pick[1], json: true };
  return entries.length > 0 ? { type: entries[0][0], media: entries[0][1], json: false } : undefined;
}
