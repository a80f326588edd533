import type { JsonSchemaObject } from '#libs/core';
import { portableSchema } from '#libs/catalog';
import { escapePointerToken, localPointerTokens, resolveRef } from './local-ref';
import type { OpenApiDocument } from './openapi-document';

/**
 * Which side of the call a schema describes: an `input` schema (parameters, request body) loses
 * its `readOnly` properties, an `output` schema (responses) its `writeOnly` ones, as OpenAPI
 * defines them (a server sets `readOnly` fields itself and never returns `writeOnly` ones).
 */
export type SchemaDirection = 'input' | 'output';

/** A schema in JSON Schema 2020-12, and what could not be converted faithfully (each a sentence). */
export interface ConvertedSchema {
  readonly schema: JsonSchemaObject;
  readonly problems: readonly string[];
}

/** Keywords whose value is one schema. */
const ONE_SCHEMA = [
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'items',
  'additionalItems',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'contentSchema',
];
/** Keywords whose value is a list of schemas. */
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAPS = ['properties', 'patternProperties', 'dependentSchemas', '$defs', 'definitions'];
/** OpenAPI-only keywords with no JSON Schema meaning, dropped (`discriminator` is kept as written). */
const DROPPED = new Set(['xml', 'externalDocs', 'nullable', 'example']);

interface Walk {
  readonly direction: SchemaDirection;
  /** Component schemas the converted schema refers to (`#/$defs/<name>`). */
  readonly refs: Set<string>;
  readonly problems: string[];
  /** Non-component references being inlined, to stop a loop of them. */
  readonly inlining: Set<string>;
}

interface ConvertedComponent {
  readonly schema: JsonSchemaObject;
  readonly refs: ReadonlySet<string>;
  readonly problems: readonly string[];
}

/**
 * Converts the schemas of one OpenAPI document to JSON Schema 2020-12, each result standing
 * alone: `#/components/schemas/X` becomes `#/$defs/X` and the result's `$defs` holds the
 * components it reaches (recursive ones included), converted once per direction and reused.
 *
 * - 3.0 `nullable: true` → `anyOf: [schema, { type: 'null' }]`; a 3.1 `type` list likewise
 *   becomes `anyOf` branches of one type each (`portableSchema`: the spelling strict clients
 *   such as Gemini's schema subset accept);
 * - `example` → `examples: [example]`; 3.0's boolean `exclusiveMinimum`/`exclusiveMaximum` → numbers;
 * - `xml`, `externalDocs` and `x-…` extensions dropped; `discriminator` kept as written;
 * - a local `$ref` elsewhere in the document (not a component schema) is inlined;
 * - an external or dangling `$ref` becomes `{}` (anything) and is reported in `problems`.
 *
 * @example
 * ```ts
 * const converter = new SchemaConverter(document);
 * const { schema, problems } = converter.convert({ $ref: '#/components/schemas/Pet' }, 'input');
 * // schema: { $ref: '#/$defs/Pet', $defs: { Pet: {…}, Category: {…}, Tag: {…} } }
 * ```
 */
export class SchemaConverter {
  private readonly components = {
    input: new Map<string, ConvertedComponent>(),
    output: new Map<string, ConvertedComponent>(),
  };

  constructor(private readonly document: OpenApiDocument) {}

  /** The schema in JSON Schema 2020-12 with the component schemas it reaches under `$defs`. */
  convert(schema: unknown, direction: SchemaDirection): ConvertedSchema {
    const walk: Walk = { direction, refs: new Set(), problems: [], inlining: new Set() };
    const root = portableSchema(this.walk(schema, walk));
    const problems = [...walk.problems];
    const defs: Record<string, unknown> = {};
    const pending = [...walk.refs];
    while (pending.length > 0) {
      const name = pending.shift() as string;
      if (Object.prototype.hasOwnProperty.call(defs, name)) continue;
      const component = this.component(name, direction);
      defs[name] = component.schema;
      problems.push(...component.problems);
      pending.push(...component.refs);
    }
    if (Object.keys(defs).length === 0) return { schema: root, problems };
    const own = (root.$defs ?? {}) as Record<string, unknown>;
    for (const name of Object.keys(defs)) {
      if (Object.prototype.hasOwnProperty.call(own, name)) {
        problems.push(`the schema's own \`$defs/${name}\` has the name of a component schema; the component's is used`);
      }
    }
    return { schema: { ...root, $defs: { ...own, ...defs } }, problems: [...new Set(problems)] };
  }

  private component(name: string, direction: SchemaDirection): ConvertedComponent {
    const cache = this.components[direction];
    let converted = cache.get(name);
    if (!converted) {
      const walk: Walk = { direction, refs: new Set(), problems: [], inlining: new Set() };
      const raw = this.document.components?.schemas?.[name];
      converted = { schema: portableSchema(this.walk(raw, walk)), refs: walk.refs, problems: walk.problems };
      cache.set(name, converted);
    }
    return converted;
  }

  private walk(node: unknown, walk: Walk): JsonSchemaObject {
    if (typeof node === 'boolean') return node as unknown as JsonSchemaObject;
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return {};
    const source = node as Record<string, unknown>;
    let out: Record<string, unknown> = {};
    for (const [keyword, value] of Object.entries(source)) {
      if (DROPPED.has(keyword) || keyword.startsWith('x-')) continue;
      if (keyword === '$ref' && typeof value === 'string') {
        out = { ...out, ...this.reference(value, walk) };
      } else if (keyword === 'items' && Array.isArray(value)) {
        // Draft 4 tuple form; 2020-12 spells it `prefixItems`.
        out.prefixItems = value.map((item) => this.walk(item, walk));
      } else if (ONE_SCHEMA.includes(keyword)) {
        out[keyword] = typeof value === 'boolean' ? value : this.walk(value, walk);
      } else if (SCHEMA_LISTS.includes(keyword) && Array.isArray(value)) {
        out[keyword] = value.map((item) => this.walk(item, walk));
      } else if (SCHEMA_MAPS.includes(keyword) && isRecord(value)) {
        out[keyword] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, this.walk(sub, walk)]));
      } else {
        out[keyword] = value;
      }
    }
    if (Array.isArray(source.items) && 'additionalItems' in out) {
      // With a tuple, draft 4's `additionalItems` is what 2020-12 calls `items`.
      out.items = out.additionalItems;
      delete out.additionalItems;
    }
    if ('example' in source && !Array.isArray(source.examples)) out.examples = [source.example];
    exclusiveBound(out, 'exclusiveMinimum', 'minimum');
    exclusiveBound(out, 'exclusiveMaximum', 'maximum');
    if (isRecord(out.properties)) this.dropOneSided(out, source, walk.direction);
    return (source.nullable === true ? nullable(out) : out) as JsonSchemaObject;
  }

  /** `$ref`: to a component schema → `#/$defs/<name>`; elsewhere in the document → inlined. */
  private reference(ref: string, walk: Walk): Record<string, unknown> {
    const tokens = localPointerTokens(ref);
    if (tokens && tokens.length === 3 && tokens[0] === 'components' && tokens[1] === 'schemas') {
      const name = tokens[2];
      if (!isRecord(this.document.components?.schemas) || !(name in this.document.components.schemas)) {
        walk.problems.push(`\`$ref: ${ref}\` points at nothing in the document`);
        return {};
      }
      walk.refs.add(name);
      return { $ref: `#/$defs/${encodeURIComponent(escapePointerToken(name))}` };
    }
    if (walk.inlining.has(ref)) {
      walk.problems.push(`\`$ref: ${ref}\` refers back to itself outside \`#/components/schemas\``);
      return {};
    }
    const target = resolveRef<unknown>(this.document, { $ref: ref });
    if (target.problem !== undefined) {
      walk.problems.push(target.problem);
      return {};
    }
    walk.inlining.add(ref);
    const inlined = this.walk(target.value, walk);
    walk.inlining.delete(ref);
    return inlined;
  }

  /** Drops `readOnly` properties from an input schema and `writeOnly` ones from an output schema. */
  private dropOneSided(out: Record<string, unknown>, source: Record<string, unknown>, direction: SchemaDirection) {
    const flag = direction === 'input' ? 'readOnly' : 'writeOnly';
    const properties = { ...(out.properties as Record<string, unknown>) };
    const raw = (source.properties ?? {}) as Record<string, unknown>;
    const dropped = Object.keys(properties).filter((name) => this.flagged(raw[name], flag));
    if (dropped.length === 0) return;
    for (const name of dropped) delete properties[name];
    out.properties = properties;
    if (Array.isArray(out.required)) {
      const required = out.required.filter((name) => !dropped.includes(name as string));
      if (required.length > 0) out.required = required;
      else delete out.required;
    }
  }

  /** True when a property's schema (or the component schema it refers to) carries `flag: true`. */
  private flagged(schema: unknown, flag: 'readOnly' | 'writeOnly'): boolean {
    if (!isRecord(schema)) return false;
    if (schema[flag] === true) return true;
    if (typeof schema.$ref !== 'string') return false;
    const target = resolveRef<unknown>(this.document, { $ref: schema.$ref });
    return target.problem === undefined && isRecord(target.value) && target.value[flag] === true;
  }
}

/**
 * One-off conversion; a `SchemaConverter` kept for a whole document converts each component once.
 *
 * @example
 * ```ts
 * convertSchema({ type: 'string', nullable: true, example: 'x' }, document, 'input').schema;
 * // { examples: ['x'], anyOf: [{ type: 'string' }, { type: 'null' }] }
 * ```
 */
export function convertSchema(schema: unknown, document: OpenApiDocument, direction: SchemaDirection): ConvertedSchema {
  return new SchemaConverter(document).convert(schema, direction);
}

/** 3.0 `nullable: true` in 2020-12 terms (a `type` list, split into `anyOf` by `portableSchema`). */
function nullable(schema: Record<string, unknown>): Record<string, unknown> {
  const hasSingleType = typeof schema.type === 'string' || Array.isArray(schema.type);
  const composed = ['$ref', 'allOf', 'anyOf', 'oneOf'].some((keyword) => keyword in schema);
  if (!hasSingleType || composed) return { anyOf: [schema, { type: 'null' }] };
  const types = Array.isArray(schema.type) ? (schema.type as unknown[]) : [schema.type];
  const out: Record<string, unknown> = { ...schema, type: types.includes('null') ? types : [...types, 'null'] };
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) out.enum = [...schema.enum, null];
  return out;
}

/** Draft 4 / OpenAPI 3.0 `exclusiveMinimum: true` + `minimum: 5` → 2020-12 `exclusiveMinimum: 5`. */
function exclusiveBound(schema: Record<string, unknown>, exclusive: string, bound: string): void {
  if (typeof schema[exclusive] !== 'boolean') return;
  if (schema[exclusive] === true && typeof schema[bound] === 'number') {
    schema[exclusive] = schema[bound];
    delete schema[bound];
  } else {
    delete schema[exclusive];
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
