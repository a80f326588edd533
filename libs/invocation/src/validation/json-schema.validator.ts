import type { default as Ajv2020, ErrorObject } from 'ajv/dist/2020';
import type { JsonSchemaObject } from '#libs/core';
import type { CompiledValidator } from './validation-result';

// One Ajv instance for the process: compiled schemas are cached by it. Created with the first
// JSON Schema compiled (at start-up, never per call), so hosts whose schemas are all DTOs or zod
// do not load ajv and ajv-formats.
let ajv: Ajv2020 | undefined;

function engine(): Ajv2020 {
  if (!ajv) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { default: Ajv } = require('ajv/dist/2020') as typeof import('ajv/dist/2020');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { default: addFormats } = require('ajv-formats') as typeof import('ajv-formats');
    ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false });
    addFormats(ajv);
  }
  return ajv;
}

/** Compiles a JSON Schema (draft 2020-12) into a validator. @throws when the schema is invalid. */
export function compileJsonSchema(schema: JsonSchemaObject): CompiledValidator {
  const validate = engine().compile(schema);
  return (value) =>
    validate(value) ? { ok: true, value } : { ok: false, issues: (validate.errors ?? []).map(describeAjvError) };
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
