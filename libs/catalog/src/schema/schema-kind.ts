import type { JsonSchemaObject, SchemaSource, ZodLikeSchema } from '#libs/core';

/** Which of the three supported schema sources a value is. */
export type SchemaKind = 'dto' | 'zod' | 'json-schema';

export function isZodSchema(source: unknown): source is ZodLikeSchema {
  return (
    typeof source === 'object' &&
    source !== null &&
    '_zod' in source &&
    typeof (source as ZodLikeSchema).safeParse === 'function'
  );
}

/** A zod 3 schema: recognised only to refuse it with a useful message. */
export function isZod3Schema(source: unknown): boolean {
  return (
    typeof source === 'object' && source !== null && '_def' in source && 'safeParse' in source && !('_zod' in source)
  );
}

export function schemaKindOf(source: SchemaSource): SchemaKind | undefined {
  if (typeof source === 'function') return 'dto';
  if (isZodSchema(source)) return 'zod';
  if (typeof source === 'object' && source !== null && !Array.isArray(source) && !isZod3Schema(source)) {
    return 'json-schema';
  }
  return undefined;
}

export function isObjectJsonSchema(schema: JsonSchemaObject): boolean {
  return schema.type === 'object';
}
