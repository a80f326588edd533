import type { Type } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import { validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { sensitiveDtoProperties, type JsonSchemaObject } from '#libs/core';

// class-transformer keeps its metadata (used for nested @Type) in a storage it does not export
// from the package root; the documented deep import is the CommonJS build's storage module.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage');

const REF_PREFIX = '#/$defs/';

/**
 * Turns class-validator DTOs into JSON Schema (2020-12 style `$defs` for nested DTOs).
 * All DTO schemas are generated in one pass at start-up and memoised.
 */
export class DtoJsonSchemaFactory {
  private all: Record<string, JsonSchemaObject> | undefined;

  create(dto: Type<object>): JsonSchemaObject {
    const all = (this.all ??= markSensitive(
      validationMetadatasToSchemas({
        refPointerPrefix: REF_PREFIX,
        classTransformerMetadataStorage: defaultMetadataStorage,
        classValidatorMetadataStorage: getMetadataStorage(),
      }) as Record<string, JsonSchemaObject>,
    ));
    const root = all[dto.name] ?? { type: 'object', properties: {} };
    const defs: Record<string, JsonSchemaObject> = {};
    collectRefs(root, all, defs);
    const schema: JsonSchemaObject = { ...root, type: 'object', properties: root.properties ?? {} };
    if (Object.keys(defs).length > 0) schema.$defs = defs;
    return schema;
  }
}

/** Adds `"x-sensitive": true` to the properties marked `@Sensitive()` (read by the audit trail). */
function markSensitive(all: Record<string, JsonSchemaObject>): Record<string, JsonSchemaObject> {
  for (const [type, properties] of sensitiveDtoProperties()) {
    const schema = all[type.name] as { properties?: Record<string, Record<string, unknown>> } | undefined;
    for (const property of properties) {
      if (schema?.properties?.[property]) schema.properties[property] = { ...schema.properties[property], 'x-sensitive': true };
    }
  }
  return all;
}

/** Copies every DTO schema referenced (transitively) from `node` into `defs`. */
function collectRefs(node: unknown, all: Record<string, JsonSchemaObject>, defs: Record<string, JsonSchemaObject>): void {
  if (Array.isArray(node)) {
    node.forEach((item) => collectRefs(item, all, defs));
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith(REF_PREFIX)) {
      const name = value.slice(REF_PREFIX.length);
      if (!defs[name] && all[name]) {
        defs[name] = all[name];
        collectRefs(all[name], all, defs);
      }
    } else {
      collectRefs(value, all, defs);
    }
  }
}
