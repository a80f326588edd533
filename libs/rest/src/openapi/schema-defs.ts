import type { JsonSchemaObject } from '#libs/core';
import { unescapePointerToken } from './local-ref';

/**
 * Bookkeeping of `$defs` for schemas `SchemaConverter` produced, whose references all read
 * `#/$defs/<name>` and so only resolve at the root of the schema they travel in: a schema
 * embedded in another (a parameter's in a tool's input schema) hands its `$defs` up to the root.
 */

/** A schema without its `$defs`, and those `$defs`. */
export function splitDefs(schema: JsonSchemaObject): { schema: JsonSchemaObject; defs: Record<string, unknown> } {
  const { $defs, ...rest } = schema;
  return { schema: rest, defs: isRecord($defs) ? $defs : {} };
}

/** The name a root `$ref: '#/$defs/<name>'` points at, or `undefined`. */
function rootDefName(schema: JsonSchemaObject): string | undefined {
  if (typeof schema.$ref !== 'string' || !schema.$ref.startsWith('#/$defs/')) return undefined;
  const token = schema.$ref.slice('#/$defs/'.length);
  return token.includes('/') ? undefined : unescapePointerToken(decodeURIComponent(token));
}

/**
 * The schema with a root `$ref: '#/$defs/X'` (a chain of them too) replaced by X itself, so its
 * `type` and `properties` are readable at the root; the `$ref`'s siblings (`description`) stay
 * on top. `$defs` are kept; `pruneDefs` drops the ones nothing reaches any more.
 */
export function inlineRootRef(schema: JsonSchemaObject): JsonSchemaObject {
  const defs = isRecord(schema.$defs) ? schema.$defs : {};
  const seen = new Set<string>();
  let current = schema;
  for (let name = rootDefName(current); name !== undefined; name = rootDefName(current)) {
    const target = defs[name];
    if (seen.has(name) || !isRecord(target)) break;
    seen.add(name);
    const { $ref: _ref, ...siblings } = current;
    current = { ...target, ...siblings } as JsonSchemaObject;
  }
  return current;
}

/** The schema with only the `$defs` its body reaches (directly or through other `$defs`). */
export function pruneDefs(schema: JsonSchemaObject): JsonSchemaObject {
  const { schema: body, defs } = splitDefs(schema);
  const kept = new Set<string>();
  const pending = referencedDefs(body);
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (kept.has(name) || !(name in defs)) continue;
    kept.add(name);
    pending.push(...referencedDefs(defs[name]));
  }
  if (kept.size === 0) return body;
  return { ...body, $defs: Object.fromEntries(Object.entries(defs).filter(([name]) => kept.has(name))) };
}

/** Every `#/$defs/<name>` a schema refers to, anywhere inside it. */
function referencedDefs(node: unknown, into: string[] = []): string[] {
  if (Array.isArray(node)) {
    for (const item of node) referencedDefs(item, into);
  } else if (isRecord(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        const name = rootDefName({ $ref: value });
        if (name !== undefined) into.push(name);
      } else {
        referencedDefs(value, into);
      }
    }
  }
  return into;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
