import type { Type } from '@nestjs/common';
import { getMetadataStorage, ValidationTypes } from 'class-validator';
import { targetConstructorToSchema } from 'class-validator-jsonschema';
import { sensitiveDtoProperties, type JsonSchemaObject } from '#libs/core';

// class-transformer keeps its metadata (used for nested @Type) in a storage it does not export
// from the package root; the documented deep import is the CommonJS build's storage module.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage');

const REF_PREFIX = '#/$defs/';

/**
 * Turns class-validator DTOs into JSON Schema (2020-12 style `$defs` for nested DTOs).
 *
 * Each class gets exactly its own schema (its properties and those it inherits), generated once
 * and memoised: two different classes with the same name never share one, and a nested class is
 * referenced by a key of its own (`Address`, or `Address_2` when another `Address` was met first).
 */
export class DtoJsonSchemaFactory {
  /** Each class's own schema, `$ref`s pointing at the keys below. */
  private readonly schemas = new Map<Function, JsonSchemaObject>();
  /** The `$defs` key of each class met, and the classes each key belongs to. */
  private readonly keys = new Map<Function, string>();
  private readonly taken = new Map<string, Function>();
  /** The nested classes each class's schema refers to. */
  private readonly references = new Map<Function, Set<Function>>();

  create(dto: Type<object>): JsonSchemaObject {
    const root = this.schemaOf(dto);
    const defs: Record<string, JsonSchemaObject> = {};
    const visit = (type: Function) => {
      for (const nested of this.references.get(type) ?? []) {
        const key = this.keyOf(nested);
        if (defs[key]) continue;
        defs[key] = this.schemaOf(nested);
        visit(nested);
      }
    };
    visit(dto);
    const schema: JsonSchemaObject = { ...root, type: 'object', properties: root.properties ?? {} };
    if (Object.keys(defs).length > 0) schema.$defs = defs;
    return schema;
  }

  private schemaOf(type: Function): JsonSchemaObject {
    let schema = this.schemas.get(type);
    if (!schema) {
      const nested = new Set<Function>();
      const reference = (child: unknown) => {
        if (typeof child !== 'function' || child === String || child === Number || child === Boolean || child === Symbol) return primitiveSchema(child);
        nested.add(child);
        return { $ref: `${REF_PREFIX}${this.keyOf(child)}` };
      };
      schema = markSensitive(
        targetConstructorToSchema(type, {
          refPointerPrefix: REF_PREFIX,
          classTransformerMetadataStorage: defaultMetadataStorage,
          classValidatorMetadataStorage: getMetadataStorage(),
          // Nested DTOs by their own key, not by a name another class may share.
          additionalConverters: {
            [ValidationTypes.NESTED_VALIDATION]: (meta: PropertyMetadata) => reference(nestedTypeOf(meta)) as never,
          },
        }) as JsonSchemaObject,
        type,
      );
      this.schemas.set(type, schema);
      this.references.set(type, nested);
    }
    return schema;
  }

  private keyOf(type: Function): string {
    let key = this.keys.get(type);
    if (!key) {
      const name = type.name || 'Dto';
      key = name;
      for (let n = 2; this.taken.has(key); n++) key = `${name}_${n}`;
      this.keys.set(type, key);
      this.taken.set(key, type);
    }
    return key;
  }
}

/** What a schema converter is told of a property. */
interface PropertyMetadata {
  target: Function | string;
  propertyName: string;
}

/** The class of a `@ValidateNested()` property: its `@Type(() => …)`, else its design type. */
function nestedTypeOf(meta: PropertyMetadata): unknown {
  const target = meta.target as Function;
  const typeMeta = defaultMetadataStorage.findTypeMetadata(target, meta.propertyName) as { typeFunction: () => unknown } | undefined;
  return typeMeta ? typeMeta.typeFunction() : Reflect.getMetadata('design:type', target.prototype, meta.propertyName);
}

function primitiveSchema(type: unknown): JsonSchemaObject {
  return { type: type === Number ? 'number' : type === Boolean ? 'boolean' : 'string' };
}

/** Adds `"x-sensitive": true` to the properties marked `@Sensitive()` on the class or a parent (read by the audit trail). */
function markSensitive(schema: JsonSchemaObject, type: Function): JsonSchemaObject {
  const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
  if (!properties) return schema;
  for (const [marked, names] of sensitiveDtoProperties()) {
    if (marked !== type && !(type.prototype instanceof marked)) continue;
    for (const name of names) if (properties[name]) properties[name] = { ...properties[name], 'x-sensitive': true };
  }
  return schema;
}
