/* eslint-disable @typescript-eslint/no-unsafe-function-type -- classes typed `Function`, as class-validator and
   class-transformer type them: map keys, read for `name` and `prototype`, never called. */
import type { Type } from '@nestjs/common';
import type { MetadataStorage } from 'class-validator';
import { mcpHeaderDtoProperties, optionalDependency, sensitiveDtoProperties, type JsonSchemaObject } from '#libs/core';

// Loaded with the first DTO met: a host whose schemas are all zod or JSON Schema loads none of them.
const FEATURE = 'a class-validator DTO as a schema';
const classValidator = optionalDependency('class-validator', FEATURE, (): typeof import('class-validator') =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require('class-validator'),
);
const jsonSchemas = optionalDependency(
  'class-validator-jsonschema',
  FEATURE,
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (): typeof import('class-validator-jsonschema') => require('class-validator-jsonschema'),
);
// class-transformer keeps its metadata (used for nested @Type) in a storage it does not export
// from the package root; the documented deep import is the CommonJS build's storage module.
const transformerStorage = optionalDependency(
  'class-transformer',
  FEATURE,
  (): { findTypeMetadata(target: Function, property: string): unknown } =>
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require('class-transformer/cjs/storage').defaultMetadataStorage,
);

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
  /** The validation metadata of each class met (its own and its parents'). */
  private readonly metadata = new Map<Function, ValidationMetadata[]>();

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
      // A class-typed property refers to its class by a key of its own, not by a name another
      // class may share; a class with no validation metadata (Date, Object, Array) has no schema.
      const reference = (child: unknown): JsonSchemaObject | undefined => {
        if (typeof child !== 'function') return undefined;
        const primitive = primitiveSchema(child);
        if (primitive) return primitive;
        if (!this.isDto(child)) return {};
        nested.add(child);
        return { $ref: `${REF_PREFIX}${this.keyOf(child)}` };
      };
      const { getMetadataStorage, ValidationTypes } = classValidator();
      schema = markHeaders(
        markSensitive(
          schemaNamed(
            jsonSchemas().validationMetadataArrayToSchemas(this.metadataOf(type), {
              refPointerPrefix: REF_PREFIX,
              classTransformerMetadataStorage: transformerStorage() as never,
              classValidatorMetadataStorage: getMetadataStorage(),
              // The two converters that refer to classes (the rest describe values).
              additionalConverters: {
                [ValidationTypes.NESTED_VALIDATION]: (meta: PropertyMetadata) => reference(nestedTypeOf(meta)) as never,
                [ValidationTypes.CUSTOM_VALIDATION]: (meta: PropertyMetadata) => reference(designTypeOf(meta)) as never,
              },
            }) as Record<string, JsonSchemaObject>,
            type,
          ),
          type,
        ),
        type,
      );
      this.schemas.set(type, schema);
      this.references.set(type, nested);
    }
    return schema;
  }

  /** Whether class-validator knows the class (or a parent): a DTO with a schema of its own. */
  private isDto(type: Function): boolean {
    return this.metadataOf(type).length > 0;
  }

  /**
   * The validation metadata of a class and its parents: what class-validator's
   * `getTargetValidationMetadatas` gives, found by looking up each class of the chain rather than
   * by testing every class ever decorated, so that N DTOs cost N look-ups, not N² (1,000 tools
   * with a nested DTO each: 0.16 s, was 0.38 s; 3,000: 0.56 s, was 4 s). Copies, as
   * class-validator-jsonschema rewrites them.
   */
  private metadataOf(type: Function): ValidationMetadata[] {
    let metadata = this.metadata.get(type);
    if (!metadata) {
      const storage = classValidator().getMetadataStorage();
      metadata = chainMetadataOf(storage, type).map((meta) => {
        // A custom constraint is converted by its name (as class-validator-jsonschema does).
        const constraint = meta.constraintCls
          ? storage.getTargetValidatorConstraints(meta.constraintCls)[0]
          : undefined;
        return constraint ? { ...meta, type: constraint.name } : { ...meta };
      });
      this.metadata.set(type, metadata);
    }
    return metadata;
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

type ValidationMetadata = ReturnType<MetadataStorage['getTargetValidationMetadatas']>[number];

/**
 * The metadata class-validator keeps for `type` and its parents: the class's own first, then its
 * parents' from the root down, leaving out a parent's rule the class declares again. Read from the
 * storage's map by class, as class-validator-jsonschema reads it; the public look-up (which tests
 * every class decorated so far) is the fallback should the map change shape.
 */
function chainMetadataOf(storage: MetadataStorage, type: Function): ValidationMetadata[] {
  const byClass = (storage as unknown as { validationMetadatas?: unknown }).validationMetadatas;
  if (!(byClass instanceof Map)) return storage.getTargetValidationMetadatas(type, '', true, false);
  const own: ValidationMetadata[] = byClass.get(type) ?? [];
  const parents: Function[] = [];
  for (
    let proto = Object.getPrototypeOf(type.prototype);
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    parents.unshift(proto.constructor);
  }
  const inherited = parents.flatMap((parent): ValidationMetadata[] => byClass.get(parent) ?? []);
  return own.concat(
    inherited.filter((meta) => !own.some((mine) => mine.propertyName === meta.propertyName && mine.type === meta.type)),
  );
}

/** The schema of `type` among those generated from its metadata (keyed by class name), or its nearest parent's. */
function schemaNamed(schemas: Record<string, JsonSchemaObject>, type: Function): JsonSchemaObject {
  for (let current: Function | null = type; current?.name; current = Object.getPrototypeOf(current)) {
    if (schemas[current.name]) return schemas[current.name];
  }
  return {};
}

/** What a schema converter is told of a property. */
interface PropertyMetadata {
  target: Function | string;
  propertyName: string;
}

/** The class of a `@ValidateNested()` property: its `@Type(() => …)`, else its design type. */
function nestedTypeOf(meta: PropertyMetadata): unknown {
  const typeMeta = transformerStorage().findTypeMetadata(meta.target as Function, meta.propertyName) as
    { typeFunction: () => unknown } | undefined;
  return typeMeta ? typeMeta.typeFunction() : designTypeOf(meta);
}

/** The type TypeScript recorded for the property (what a custom validator's schema is read from). */
function designTypeOf(meta: PropertyMetadata): unknown {
  return Reflect.getMetadata('design:type', (meta.target as Function).prototype, meta.propertyName);
}

/** The schema of String, Number, Boolean and Symbol, as class-validator-jsonschema gives them. */
function primitiveSchema(type: Function): JsonSchemaObject | undefined {
  if (type === String || type === Symbol) return { type: 'string' };
  if (type === Number) return { type: 'number' };
  if (type === Boolean) return { type: 'boolean' };
  return undefined;
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

/** Adds `"x-mcp-header": name` to the properties marked `@McpHeader(name)` on the class or a parent. */
function markHeaders(schema: JsonSchemaObject, type: Function): JsonSchemaObject {
  const properties = schema.properties as Record<string, Record<string, unknown>> | undefined;
  if (!properties) return schema;
  for (const [marked, headers] of mcpHeaderDtoProperties()) {
    if (marked !== type && !(type.prototype instanceof marked)) continue;
    for (const [name, header] of headers)
      if (properties[name]) properties[name] = { ...properties[name], 'x-mcp-header': header };
  }
  return schema;
}
