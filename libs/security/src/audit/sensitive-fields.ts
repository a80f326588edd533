import { REDACTED } from '../redaction/secret-redactor';

/** Argument names redacted whatever the schema says: credentials are never worth keeping. */
const SENSITIVE_NAMES =
  /^(password|passwd|passphrase|secret|client_?secret|token|access_?token|refresh_?token|api_?key|authorization|credentials?|private_?key)$/i;

/** Which argument fields to redact, read once from a tool's input JSON Schema. */
export interface SensitiveFields {
  /** Property names marked sensitive at this level. */
  readonly names: ReadonlySet<string>;
  /** Plans of nested objects (by property name) and of array items (`[]`). */
  readonly nested: ReadonlyMap<string, SensitiveFields>;
}

const NONE: SensitiveFields = { names: new Set(), nested: new Map() };

/**
 * Reads the fields a JSON Schema marks sensitive: `"x-sensitive": true` (what `@Sensitive()` on
 * a DTO property and `.meta({ 'x-sensitive': true })` on a zod field produce) or `writeOnly: true`.
 * Local `$ref`s into `$defs`/`definitions` are followed.
 */
export function sensitiveFieldsOf(schema: unknown, root: unknown = schema, seen = new Set<unknown>()): SensitiveFields {
  const node = resolveRef(schema, root);
  if (typeof node !== 'object' || node === null || seen.has(node)) return NONE;
  seen.add(node);
  const names = new Set<string>();
  const nested = new Map<string, SensitiveFields>();
  const properties = (node as { properties?: Record<string, unknown> }).properties ?? {};
  for (const [name, property] of Object.entries(properties)) {
    const resolved = resolveRef(property, root) as Record<string, unknown> | undefined;
    if (resolved && (resolved['x-sensitive'] === true || resolved.writeOnly === true)) names.add(name);
    else {
      const inner = sensitiveFieldsOf(resolved, root, seen);
      if (inner !== NONE) nested.set(name, inner);
    }
  }
  const items = sensitiveFieldsOf((node as { items?: unknown }).items, root, seen);
  if (items !== NONE) nested.set('[]', items);
  return names.size === 0 && nested.size === 0 ? NONE : { names, nested };
}

/**
 * `value` with the sensitive fields (and any field named like a credential) replaced by
 * `"[REDACTED]"`: a copy where something was replaced, `value` itself (untouched) otherwise.
 */
export function redactSensitive(value: unknown, fields: SensitiveFields = NONE): unknown {
  if (Array.isArray(value)) {
    const items = fields.nested.get('[]') ?? NONE;
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const redacted = redactSensitive(value[index], items);
      if (redacted !== value[index]) (copy ??= [...value])[index] = redacted;
    }
    return copy ?? value;
  }
  if (typeof value !== 'object' || value === null) return value;
  let copy: Record<string, unknown> | undefined;
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    const field = (value as Record<string, unknown>)[key];
    const redacted =
      fields.names.has(key) || SENSITIVE_NAMES.test(key)
        ? REDACTED
        : redactSensitive(field, fields.nested.get(key) ?? NONE);
    if (redacted !== field) (copy ??= { ...(value as Record<string, unknown>) })[key] = redacted;
  }
  return copy ?? value;
}

function resolveRef(schema: unknown, root: unknown): unknown {
  const ref = (schema as { $ref?: unknown } | undefined)?.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return schema;
  return ref
    .slice(2)
    .split('/')
    .reduce<unknown>(
      (node, part) => (node as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')],
      root,
    );
}
