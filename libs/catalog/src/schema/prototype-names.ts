import { ONE_SCHEMA_KEYWORDS, SCHEMA_LIST_KEYWORDS, SCHEMA_MAP_KEYWORDS } from './portable-schema';

const MAX_DEPTH = 64;

/**
 * The property names a schema declares, at any depth, that are also members of every plain
 * object (`constructor`, `__proto__`, `toString`, `hasOwnProperty`, `valueOf`, …). Read from a
 * plain object, such a property is "there" when it was not sent (`args.toString` is a function),
 * so validators and binders mistake it for a given value: a tool that declares one needs its
 * arguments held where absent means absent (see the invoker), and class-validator cannot take
 * one at all.
 *
 * @example
 * ```ts
 * prototypeNamedProperties({ type: 'object', properties: { toString: { type: 'string' }, id: {} } }); // ['toString']
 * ```
 */
export function prototypeNamedProperties(schema: unknown): string[] {
  const found = new Set<string>();
  collect(schema, 0, found);
  return [...found];
}

function collect(node: unknown, depth: number, found: Set<string>): void {
  if (!isRecord(node) || depth > MAX_DEPTH) return;
  if (isRecord(node.properties)) {
    for (const name of Object.keys(node.properties)) if (name in Object.prototype) found.add(name);
  }
  for (const keyword of ONE_SCHEMA_KEYWORDS) collect(node[keyword], depth + 1, found);
  for (const keyword of SCHEMA_LIST_KEYWORDS) {
    const list = node[keyword];
    if (Array.isArray(list)) for (const item of list) collect(item, depth + 1, found);
  }
  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    const map = node[keyword];
    if (isRecord(map)) for (const name of Object.keys(map)) collect(map[name], depth + 1, found);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
