/** A local `$ref` (`#/$defs/…`, `#/definitions/…`) resolved against the root schema; anything else as it is. */
export function resolveLocalRef(schema: unknown, root: unknown): unknown {
  const ref = (schema as { $ref?: unknown } | undefined)?.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#')) return schema;
  return ref
    .slice(2)
    .split('/')
    .filter(Boolean)
    .reduce<unknown>(
      (node, part) => (node as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')],
      root,
    );
}
