import { ONE_SCHEMA_KEYWORDS, SCHEMA_LIST_KEYWORDS, SCHEMA_MAP_KEYWORDS } from './portable-schema';

/** One place of a schema that the strict schema subsets of model APIs refuse or misread. */
export interface SchemaPortabilityIssue {
  /** Where, as a JSON pointer (RFC 6901) into the schema: `/properties/assignee`; `` for the root. */
  readonly pointer: string;
  readonly problem: string;
  readonly fix: string;
}

/** Keywords whose value may be `true`/`false` by design (`additionalProperties: false`). */
const BOOLEAN_VALUED = new Set([
  'additionalProperties',
  'unevaluatedProperties',
  'additionalItems',
  'unevaluatedItems',
]);

/** Keywords that say something about the value: a schema with none of them accepts anything. */
const CONSTRAINING = new Set([
  'type',
  'enum',
  'const',
  '$ref',
  '$dynamicRef',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  ...ONE_SCHEMA_KEYWORDS.filter((keyword) => !['if', 'then', 'else'].includes(keyword)),
  ...SCHEMA_LIST_KEYWORDS,
  ...SCHEMA_MAP_KEYWORDS.filter((keyword) => keyword !== '$defs' && keyword !== 'definitions'),
  'multipleOf',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'contentEncoding',
  'contentMediaType',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minContains',
  'maxContains',
  'minProperties',
  'maxProperties',
  'required',
  'dependentRequired',
]);

const MAX_DEPTH = 64;

/**
 * What in `schema` the strict schema subsets would refuse (see `portableSchema` for which, and
 * why): the places a strict client (Gemini's OpenAPI subset, OpenAI's strict mode, the MCP
 * Inspector's `--strict`) rejects the tool over or drops a constraint of, each with its fix.
 *
 * - a `type` list: `anyOf` branches of one type each;
 * - `true` or `false` where a schema object is expected (`additionalProperties: false` is fine);
 * - a `$ref` outside the document (no client fetches it);
 * - a schema with no keyword that constrains the value (`{}`, or only a description).
 *
 * @example
 * ```ts
 * schemaPortabilityIssues({ type: 'object', properties: { id: { type: ['string', 'null'] } } });
 * // [{ pointer: '/properties/id', problem: '`type` is a list (["string","null"]) …', fix: 'write "anyOf": …' }]
 * ```
 */
export function schemaPortabilityIssues(schema: unknown): SchemaPortabilityIssue[] {
  const issues: SchemaPortabilityIssue[] = [];
  visit(schema, '', undefined, 0, { issues, ids: declaresId(schema, 0) });
  return issues;
}

interface Walk {
  readonly issues: SchemaPortabilityIssue[];
  /** Whether the schema names its parts with `$id` (then a relative `$ref` may point inside it). */
  readonly ids: boolean;
}

function visit(node: unknown, pointer: string, keyword: string | undefined, depth: number, walk: Walk): void {
  if (depth > MAX_DEPTH) return;
  if (typeof node === 'boolean') {
    if (keyword !== undefined && BOOLEAN_VALUED.has(keyword)) return;
    walk.issues.push({
      pointer,
      problem: `\`${String(node)}\` stands where a schema object is expected`,
      fix: node
        ? 'write {} (or better, the value\'s "type")'
        : 'write {"not": {}} (or leave the entry out where absence means the same)',
    });
    return;
  }
  if (!isRecord(node)) return;
  if (Array.isArray(node.type)) {
    const branches = node.type.map((type) => `{"type":${JSON.stringify(type)}}`).join(',');
    walk.issues.push({
      pointer,
      problem: `\`type\` is a list (${JSON.stringify(node.type)}), which a one-type schema dialect (Gemini's function declarations) cannot read`,
      fix: `write "anyOf": [${branches}], each type's keywords in its branch (DTO, zod and OpenAPI schemas are given this form by the host)`,
    });
  }
  if (typeof node.$ref === 'string' && !node.$ref.startsWith('#') && !walk.ids) {
    walk.issues.push({
      pointer,
      problem: `\`$ref\` points outside the schema (${node.$ref}); clients do not fetch it`,
      fix: 'put the referenced schema under "$defs" and refer to it as "#/$defs/<name>"',
    });
  }
  if (keyword !== 'not' && !Object.keys(node).some((key) => CONSTRAINING.has(key)) && !('if' in node)) {
    walk.issues.push({
      pointer,
      problem: 'the schema constrains nothing: it accepts any value, which strict clients refuse',
      fix: 'declare what the value is, e.g. {"type": "object"} for a free-form object or {"type": "string"}',
    });
  }
  for (const key of ONE_SCHEMA_KEYWORDS) {
    if (key in node && !Array.isArray(node[key])) visit(node[key], `${pointer}/${key}`, key, depth + 1, walk);
  }
  for (const key of SCHEMA_LIST_KEYWORDS) {
    const list = node[key];
    if (Array.isArray(list))
      list.forEach((item, index) => visit(item, `${pointer}/${key}/${index}`, key, depth + 1, walk));
  }
  for (const key of SCHEMA_MAP_KEYWORDS) {
    const map = node[key];
    if (!isRecord(map)) continue;
    for (const name of Object.keys(map))
      visit(map[name], `${pointer}/${key}/${escapeToken(name)}`, key, depth + 1, walk);
  }
}

function declaresId(node: unknown, depth: number): boolean {
  if (!isRecord(node) || depth > MAX_DEPTH) return false;
  if (typeof node.$id === 'string' && node.$id !== '') return true;
  return Object.values(node).some((value) =>
    Array.isArray(value) ? value.some((item) => declaresId(item, depth + 1)) : declaresId(value, depth + 1),
  );
}

/** A property name as a JSON pointer token: `~` → `~0`, `/` → `~1`. */
function escapeToken(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
