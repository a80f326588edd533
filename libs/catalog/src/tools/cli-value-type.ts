import type { JsonSchemaObject } from '#libs/core';

/** A JSON type a command-line word can be read as. */
export type CliScalarType = 'string' | 'number' | 'integer' | 'boolean' | 'null';

/** A value a command-line word can stand for: an `enum` or `const` member. */
export type CliLiteral = string | number | boolean | null;

/**
 * How the command line gives a property's value, read from its JSON Schema:
 * - `scalar`: one word read as one of `types` or equal to one of `values` (`enum`/`const`);
 *   `type: ['string', 'null']` and an `anyOf`/`oneOf` of such schemas are scalars too;
 * - `array`: repeated options or comma lists, each item of the `items` type;
 * - `json`: a JSON value (objects, and what composes more than the command line can say);
 * - `any`: no type given: JSON when the word parses as JSON, the word itself otherwise.
 *
 * @internal shared by the catalog's start-up check and the CLI's binder.
 */
export type CliValueType =
  | { readonly kind: 'scalar'; readonly types: readonly CliScalarType[]; readonly values?: readonly CliLiteral[] }
  | { readonly kind: 'array'; readonly items: CliValueType }
  | { readonly kind: 'json' }
  | { readonly kind: 'any' };

const SCALARS: ReadonlySet<unknown> = new Set(['string', 'number', 'integer', 'boolean', 'null']);
const JSON_VALUE: CliValueType = { kind: 'json' };
const ANY_VALUE: CliValueType = { kind: 'any' };
/** Keywords that shape a value beyond what one word says (an unresolved `$ref` among them). */
const SHAPES = ['$ref', 'properties', 'allOf', 'anyOf', 'oneOf', 'not', 'if', 'items', 'prefixItems'];
/** `$ref` chains longer than this are taken for loops. */
const MAX_REFS = 16;

function isLiteral(value: unknown): value is CliLiteral {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

function isSchemaObject(value: unknown): value is JsonSchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Follows a local `$ref` (`#/$defs/X`, `#/definitions/X`) and a lone `allOf` member. */
function resolve(node: unknown, root: JsonSchemaObject, depth = 0): unknown {
  if (!isSchemaObject(node) || depth > MAX_REFS) return node;
  if (typeof node.$ref === 'string') {
    const target = node.$ref
      .replace(/^#\/?/, '')
      .split('/')
      .filter(Boolean)
      .map((part) => decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((at, key) => (isSchemaObject(at) ? at[key] : undefined), root);
    return node.$ref.startsWith('#') && target !== undefined ? resolve(target, root, depth + 1) : node;
  }
  const { allOf, description: _description, title: _title, default: _default, ...rest } = node;
  if (Array.isArray(allOf) && allOf.length === 1 && Object.keys(rest).length === 0)
    return resolve(allOf[0], root, depth + 1);
  return node;
}

/** The scalar types a `type` keyword names, or `undefined` when it names others too. */
function scalarTypes(type: unknown): CliScalarType[] | undefined {
  const types = Array.isArray(type) ? type : [type];
  if (types.length === 0 || !types.every((each) => SCALARS.has(each))) return undefined;
  return types as CliScalarType[];
}

/** The union of scalar alternatives, or `json` when one of them is not a scalar. */
function union(members: CliValueType[]): CliValueType {
  const types = new Set<CliScalarType>();
  const values: CliLiteral[] = [];
  let restricted = false;
  for (const member of members) {
    if (member.kind !== 'scalar') return JSON_VALUE;
    member.types.forEach((type) => types.add(type));
    if (member.values) {
      restricted = true;
      values.push(...member.values.filter((value) => !values.includes(value)));
    }
  }
  return {
    kind: 'scalar',
    types: [...types],
    ...(restricted && { values }),
  };
}

/**
 * How the command line gives a value of `schema` (a property of `root`, whose local `$ref`s it
 * follows).
 *
 * @internal
 */
export function cliValueTypeOf(schema: unknown, root: JsonSchemaObject): CliValueType {
  const node = resolve(schema, root);
  if (node === true || (isSchemaObject(node) && Object.keys(node).length === 0)) return ANY_VALUE;
  if (!isSchemaObject(node)) return JSON_VALUE;
  if ('const' in node) return isLiteral(node.const) ? { kind: 'scalar', types: [], values: [node.const] } : JSON_VALUE;
  if (Array.isArray(node.enum))
    return node.enum.every(isLiteral) ? { kind: 'scalar', types: [], values: node.enum } : JSON_VALUE;
  const alternatives = node.anyOf ?? node.oneOf;
  if (node.type === undefined && Array.isArray(alternatives)) {
    const members = alternatives.map((member) => cliValueTypeOf(member, root));
    // An array that may be null, as portable schemas spell it (`anyOf: [{ type: 'array' }, { type: 'null' }]`).
    const others = members.filter((member) => !(member.kind === 'scalar' && isOnlyNull(member)));
    if (others.length === 1 && others[0].kind === 'array') return others[0];
    return union(members);
  }
  const types = scalarTypes(node.type);
  if (types) return { kind: 'scalar', types };
  // An array, or an array that may be null (null is then given with --json).
  const named = Array.isArray(node.type) ? node.type.filter((type) => type !== 'null') : [node.type];
  if (named.length === 1 && named[0] === 'array') {
    const items = node.items === undefined ? ANY_VALUE : cliValueTypeOf(node.items, root);
    return { kind: 'array', items: items.kind === 'array' ? JSON_VALUE : items };
  }
  if (node.type === undefined && !SHAPES.some((keyword) => keyword in node)) return ANY_VALUE;
  return JSON_VALUE;
}

function isOnlyNull(type: CliValueType & { kind: 'scalar' }): boolean {
  return type.values === undefined && type.types.length === 1 && type.types[0] === 'null';
}

/** Whether a value of this type is a flag: `--x` alone means true and `--no-x` false. @internal */
export function isCliFlag(type: CliValueType): boolean {
  return (
    type.kind === 'scalar' &&
    type.types.includes('boolean') &&
    type.types.every((each) => each === 'boolean' || each === 'null') &&
    (type.values ?? []).every((value) => typeof value === 'boolean')
  );
}
