import { isReference, type OpenApiDocument } from './openapi-document';

/** What a `$ref` leads to: the object, or why it leads nowhere the bridge can follow. */
export type RefTarget<T> = { readonly value: T; readonly problem?: undefined } | { readonly problem: string };

/** `a/b~c` → `a~1b~0c` (RFC 6901: `~` first, so an escaped `/` is not read back as `~1`). */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** `a~1b~0c` → `a/b~c`. */
export function unescapePointerToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/**
 * The tokens of a local reference (`#/components/schemas/Pet` → `['components', 'schemas', 'Pet']`),
 * or `undefined` when it is not local (another file or URL). The fragment may be percent-encoded.
 */
export function localPointerTokens(ref: string): string[] | undefined {
  if (!ref.startsWith('#')) return undefined;
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (fragment === '') return [];
  if (!fragment.startsWith('/')) return undefined;
  return fragment.slice(1).split('/').map(unescapePointerToken);
}

/**
 * The object a local `$ref` points at in `document`, following a chain of references
 * (`#/components/parameters/A` whose value is itself a `$ref`). A reference to another file or
 * URL, one that points at nothing, or a loop of references gives a `problem` instead.
 */
export function resolveRef<T>(document: OpenApiDocument, value: T | { $ref: string }): RefTarget<T> {
  const seen = new Set<string>();
  let current: unknown = value;
  while (isReference(current)) {
    const ref = current.$ref;
    if (seen.has(ref)) return { problem: `\`$ref: ${ref}\` refers back to itself` };
    seen.add(ref);
    const tokens = localPointerTokens(ref);
    if (!tokens) {
      return { problem: `\`$ref: ${ref}\` points outside the document (external references are not followed)` };
    }
    let target: unknown = document;
    for (const token of tokens) {
      target =
        typeof target === 'object' && target !== null && Object.prototype.hasOwnProperty.call(target, token)
          ? (target as Record<string, unknown>)[token]
          : undefined;
      if (target === undefined) break;
    }
    if (target === undefined || target === null) {
      return { problem: `\`$ref: ${ref}\` points at nothing in the document` };
    }
    current = target;
  }
  return { value: current as T };
}
