import { Injectable, type Type } from '@nestjs/common';
import type { z } from 'zod';
import { optionalDependency, type JsonSchemaObject, type SchemaSource, type ZodLikeSchema } from '#libs/core';
import { DtoJsonSchemaFactory } from './dto-json-schema';
import { portableSchema } from './portable-schema';
import { schemaKindOf } from './schema-kind';

/** zod is loaded only when a zod schema is given (whoever passes one has zod installed). */
const zod = optionalDependency('zod', 'a zod schema as `input`, `output` or prompt `args`', (): typeof import('zod') =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require('zod'),
);

/** Produces the JSON Schema published for a tool's input or output, from any schema source. */
@Injectable()
export class JsonSchemaFactory {
  private readonly dtos = new DtoJsonSchemaFactory();

  create(source: SchemaSource): JsonSchemaObject {
    switch (schemaKindOf(source)) {
      // Generated schemas are published in their most portable form (nullable fields as `anyOf`);
      // a JSON Schema is published as its author wrote it (the registry warns where strict
      // clients would refuse it).
      case 'dto':
        return portableSchema(this.dtos.create(source as Type<object>));
      case 'zod': {
        const { $schema: _ignored, ...schema } = zod().toJSONSchema(source as unknown as z.ZodType, {
          target: 'draft-2020-12',
          io: 'input',
          unrepresentable: 'any',
        }) as JsonSchemaObject;
        return portableSchema(schema);
      }
      case 'json-schema':
        return source as JsonSchemaObject;
      default:
        throw new TypeError('Unsupported schema source');
    }
  }
}

export type { ZodLikeSchema };
