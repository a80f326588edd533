/**
 * The most portable spelling of a JSON Schema for tool schemas: every `type` list (`["string",
 * "null"]`, what zod writes for `.nullable()` and OpenAPI 3.0's `nullable: true` becomes) is
 * split into `anyOf` branches of one `type` each, every keyword that applies to one type moved
 * into its branch:
 *
 * ```json
 * { "description": "…", "type": ["string", "null"], "maxLength": 80 }
 * → { "description": "…", "anyOf": [{ "type": "string", "maxLength": 80 }, { "type": "null" }] }
 * ```
 *
 * Why this form (late 2026):
 * - Gemini's function declarations take a subset of OpenAPI 3.0 whose `type` is one value, never
 *   a list; they take `anyOf` and a `null` type. A type list is refused or its constraint dropped.
 * - OpenAI's strict mode (structured outputs) takes `anyOf` with a `{"type": "null"}` branch (it
 *   also takes type lists, but not everyone does); Anthropic's tools take any JSON Schema and
 *   its strict mode `anyOf`.
 * - The MCP Inspector's `--strict` flags every type list as less portable, suggesting `anyOf`.
 * - Keywords of one type stay with that type (`required` only beside `"type": "object"`), as
 *   Gemini insists; annotations (`description`, `default`, `examples`, `title`) stay outside.
 *
 * An optional field is left as JSON Schema says it: absent from `required`, never turned into
 * a nullable one (absent and `null` are different contracts; OpenAI's strict mode, which wants
 * every field required, is the client's conversion to make, and makes it).
 *
 * The result accepts exactly the values the input accepted. The input is never modified: the
 * parts that change are copied, the rest shared.
 *
 * @example
 * ```ts
 * portableSchema({ type: 'object', properties: { assignee: { type: ['string', 'null'] } } });
 * // { type: 'object', properties: { assignee: { anyOf: [{ type: 'string' }, { type: 'null' }] } } }
 * ```
 */
export function portableSchema<T>(schema: T): T {
  return portableNode(schema, 0) as T;
}

/** Keywords whose value is one schema. */
export const ONE_SCHEMA_KEYWORDS = [
  'items',
  'additionalItems',
  'unevaluatedItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'contentSchema',
] as const;
/** Keywords whose value is a list of schemas (`items` too, in its draft-07 tuple form). */
export const SCHEMA_LIST_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'] as const;
/** Keywords whose value maps names to schemas. */
export const SCHEMA_MAP_KEYWORDS = [
  'properties',
  'patternProperties',
  'dependentSchemas',
  'dependencies',
  '$defs',
  'definitions',
] as const;

/** The keywords that apply to values of one type only (or of the types listed), by type. */
const KEYWORDS_BY_TYPE: readonly (readonly [readonly string[], readonly string[]])[] = [
  [['string'], ['minLength', 'maxLength', 'pattern', 'contentEncoding', 'contentMediaType', 'contentSchema']],
  [
    ['number', 'integer'],
    ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  ],
  [
    ['array'],
    [
      'items',
      'prefixItems',
      'additionalItems',
      'unevaluatedItems',
      'contains',
      'minContains',
      'maxContains',
      'minItems',
      'maxItems',
      'uniqueItems',
    ],
  ],
  [
    ['object'],
    [
      'properties',
      'patternProperties',
      'additionalProperties',
      'unevaluatedProperties',
      'propertyNames',
      'required',
      'dependentRequired',
      'dependentSchemas',
      'dependencies',
      'minProperties',
      'maxProperties',
    ],
  ],
  // A string format, or OpenAPI's number formats (int32, int64, float, double).
  [['string', 'number', 'integer'], ['format']],
];
/** The JSON types each type-specific keyword applies to. */
const TYPE_OF_KEYWORD: ReadonlyMap<string, readonly string[]> = new Map(
  KEYWORDS_BY_TYPE.flatMap(([types, keywords]) => keywords.map((keyword) => [keyword, types] as const)),
);

/** Deeper than any real schema: a cyclic object (not JSON) is left as it is past this. */
const MAX_DEPTH = 128;

function portableNode(node: unknown, depth: number): unknown {
  if (!isRecord(node) || depth > MAX_DEPTH) return node;
  let out: Record<string, unknown> | undefined;
  const set = (keyword: string, value: unknown) => {
    if (value !== node[keyword]) (out ??= { ...node })[keyword] = value;
  };
  for (const keyword of ONE_SCHEMA_KEYWORDS) {
    if (keyword in node && !Array.isArray(node[keyword])) set(keyword, portableNode(node[keyword], depth + 1));
  }
  for (const keyword of SCHEMA_LIST_KEYWORDS) {
    const list = node[keyword];
    if (Array.isArray(list))
      set(
        keyword,
        sameOrCopy(
          list,
          list.map((item) => portableNode(item, depth + 1)),
        ),
      );
  }
  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    const map = node[keyword];
    if (!isRecord(map)) continue;
    let copy: Record<string, unknown> | undefined;
    for (const name of Object.keys(map)) {
      const portable = portableNode(map[name], depth + 1);
      // defineProperty: a property named `__proto__` stays a property (spread copies it as one too).
      if (portable !== map[name]) defineOwn((copy ??= { ...map }), name, portable);
    }
    if (copy) set(keyword, copy);
  }
  const current = out ?? node;
  return Array.isArray(current.type) ? splitTypes(current) : current;
}

/** `node` with its `type` list split into `anyOf` branches (see `portableSchema`). */
function splitTypes(node: Record<string, unknown>): Record<string, unknown> {
  const types = [...new Set((node.type as unknown[]).filter((type): type is string => typeof type === 'string'))];
  if (types.length === 0) return node;
  if (types.length === 1) return { ...node, type: types[0] };
  const outer: Record<string, unknown> = {};
  const branches = types.map((type): Record<string, unknown> => ({ type }));
  for (const keyword of Object.keys(node)) {
    if (keyword === 'type') continue;
    const value = node[keyword];
    const applies = TYPE_OF_KEYWORD.get(keyword)?.filter((type) => types.includes(type));
    if (keyword === 'enum' && Array.isArray(value)) {
      branches.forEach((branch) => (branch.enum = value.filter((item) => isOfType(item, branch.type as string))));
    } else if (keyword === 'const') {
      branches.forEach((branch) => (branch.const = value));
    } else if (applies && applies.length > 0) {
      for (const branch of branches) if (applies.includes(branch.type as string)) defineOwn(branch, keyword, value);
    } else {
      defineOwn(outer, keyword, value);
    }
  }
  const possible = branches
    .filter((branch) => (!('enum' in branch) || (branch.enum as unknown[]).length > 0) && constFits(branch))
    .map(simplifiedBranch);
  // No branch can hold a value (an `enum` of none of the types): nothing better to say than the original.
  if (possible.length === 0) return node;
  if (possible.length === 1) return { ...outer, ...possible[0] };
  if ('anyOf' in outer) {
    outer.allOf = [...(Array.isArray(outer.allOf) ? outer.allOf : []), { anyOf: outer.anyOf }];
    delete outer.anyOf;
  }
  outer.anyOf = possible;
  return outer;
}

/** A `null` branch is `{"type": "null"}`: an `enum: [null]` or `const: null` beside it says nothing more. */
function simplifiedBranch(branch: Record<string, unknown>): Record<string, unknown> {
  if (branch.type !== 'null') return branch;
  return { type: 'null' };
}

function constFits(branch: Record<string, unknown>): boolean {
  return !('const' in branch) || isOfType(branch.const, branch.type as string);
}

/** Whether `value` is of JSON type `type` (an integer is also a number). */
function isOfType(value: unknown, type: string): boolean {
  switch (type) {
    case 'null':
      return value === null;
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isRecord(value);
    default:
      return true;
  }
}

function sameOrCopy(original: unknown[], mapped: unknown[]): unknown[] {
  return mapped.every((item, index) => item === original[index]) ? original : mapped;
}

function defineOwn(target: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
