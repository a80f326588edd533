import type { Type } from '@nestjs/common';

/** A JSON Schema object, as MCP puts it on the wire (draft 2020-12 unless `$schema` says otherwise). */
export interface JsonSchemaObject {
  type?: string | string[];
  properties?: Record<string, unknown>;
  required?: string[];
  [keyword: string]: unknown;
}

/** The minimal shape of a zod 4 schema that the host relies on. */
export interface ZodLikeSchema {
  readonly _zod: unknown;
  safeParse(value: unknown): { success: boolean; data?: unknown; error?: unknown };
}

/**
 * Where a tool's input or output schema comes from:
 * a class-validator DTO class, a zod 4 schema, or a raw JSON Schema object.
 */
export type SchemaSource = Type<object> | ZodLikeSchema | JsonSchemaObject;
