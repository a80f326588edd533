import type { default as Ajv2020, ErrorObject } from 'ajv/dist/2020';
import type { JsonSchemaObject } from '#libs/core';
import type { CompiledValidator } from './validation-result';

/** A JSON Schema dialect Ajv compiles, as `$schema` names it. */
type Dialect = '2020-12' | '2019-09' | 'draft-07' | 'draft-06';

const DIALECTS: Readonly<Record<string, Dialect>> = {
  'https://json-schema.org/draft/2020-12/schema': '2020-12',
  'https://json-schema.org/draft/2019-09/schema': '2019-09',
  'http://json-schema.org/draft-07/schema': 'draft-07',
  'http://json-schema.org/draft-06/schema': 'draft-06',
};

// One Ajv instance per dialect for the process: compiled schemas are cached by it. Created with
// the first JSON Schema of its dialect (at start-up, never per call), so hosts whose schemas are
// all DTOs or zod do not load ajv and ajv-formats. Dialects cannot share an instance: their
// keywords mean different things (`items` as an array, `$defs` against `definitions`).
const engines = new Map<Dialect, Ajv2020>();

function engine(dialect: Dialect, cache: Map<Dialect, Ajv2020> = engines): Ajv2020 {
  let ajv = cache.get(dialect);
  if (!ajv) {
    /* eslint-disable @typescript-eslint/no-require-imports */
    const { default: addFormats } = require('ajv-formats') as typeof import('ajv-formats');
    const options = { allErrors: true, strict: false, coerceTypes: false } as const;
    if (dialect === '2020-12') ajv = new (require('ajv/dist/2020') as typeof import('ajv/dist/2020')).default(options);
    else if (dialect === '2019-09')
      ajv = new (require('ajv/dist/2019') as typeof import('ajv/dist/2019')).default(options) as unknown as Ajv2020;
    else {
      ajv = new (require('ajv') as typeof import('ajv')).default(options) as unknown as Ajv2020;
      if (dialect === 'draft-06') ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json'));
    }
    /* eslint-enable @typescript-eslint/no-require-imports */
    addFormats(ajv);
    cache.set(dialect, ajv);
  }
  return ajv;
}

/** The dialect `schema.$schema` names (2020-12 without one). @throws for one the host does not validate */
function dialectOf(schema: JsonSchemaObject): Dialect {
  const named = typeof schema.$schema === 'string' ? schema.$schema.replace(/#$/, '') : undefined;
  const dialect = named === undefined ? '2020-12' : DIALECTS[named];
  if (!dialect)
    throw new Error(
      `its $schema "${String(schema.$schema)}" is not a JSON Schema dialect the host validates: use 2020-12 (or leave $schema out), 2019-09, draft-07 or draft-06`,
    );
  return dialect;
}

/**
 * Compiles a JSON Schema into a validator, in the dialect its `$schema` names: 2020-12 (MCP's
 * default, and when `$schema` is absent), 2019-09, draft-07 or draft-06 (what many servers'
 * schema generators still write, and a gateway passes on from its upstreams).
 * @throws when the schema is invalid, or names a dialect Ajv cannot compile (draft-04 and older)
 */
export function compileJsonSchema(schema: JsonSchemaObject): CompiledValidator {
  const validate = engine(dialectOf(schema)).compile(schema);
  return (value) =>
    validate(value) ? { ok: true, value } : { ok: false, issues: (validate.errors ?? []).map(describeAjvError) };
}

/** Schemas a checker's engines compile before they are replaced by new ones (what they hold goes with them). */
const CHECKS_PER_ENGINE = 100;

/**
 * A check that the host can compile JSON Schemas as `compileJsonSchema` does, in engines of its
 * own, replaced every 100 schemas: what they compiled goes with them. For schemas the host may
 * never use, such as a gateway's upstream lists (read again whenever they change), whose
 * compiled code the process's engines would otherwise keep for good (an Ajv instance holds on
 * to everything it compiled, `removeSchema` or not).
 * @example
 * ```ts
 * const check = jsonSchemaChecker();
 * for (const tool of tools) check(tool.inputSchema); // throws for a schema the host cannot use
 * ```
 */
export function jsonSchemaChecker(): (schema: JsonSchemaObject) => void {
  let own = new Map<Dialect, Ajv2020>();
  let checked = 0;
  return (schema) => {
    if (++checked % CHECKS_PER_ENGINE === 0) own = new Map();
    engine(dialectOf(schema), own).compile(schema);
  };
}

function describeAjvError(error: ErrorObject): string {
  const path = error.instancePath ? error.instancePath.slice(1).replace(/\//g, '.') : '';
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    return `${path ? `${path}.` : ''}${missing}: is required`;
  }
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty;
    return `${path ? `${path}.` : ''}${extra}: is not an accepted argument`;
  }
  const expected =
    error.keyword === 'enum'
      ? ` (one of ${JSON.stringify((error.params as { allowedValues: unknown[] }).allowedValues)})`
      : '';
  return `${path || '(arguments)'}: ${error.message ?? 'is invalid'}${expected}`;
}
