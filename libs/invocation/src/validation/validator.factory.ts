import { Injectable, type Type } from '@nestjs/common';
import type { JsonSchemaObject, SchemaSource, ZodLikeSchema } from '#libs/core';
import type { SchemaKind } from '#libs/catalog';
import { compileDtoValidator } from './dto.validator';
import { compileJsonSchema } from './json-schema.validator';
import type { CompiledValidator } from './validation-result';
import { compileZodValidator } from './zod.validator';

/** Compiles one validator per schema source, each with the engine native to that source. */
@Injectable()
export class ValidatorFactory {
  /** @param published the JSON Schema published for `source` (DTOs use it to report type errors alone) */
  compile(source: SchemaSource, kind: SchemaKind, published?: JsonSchemaObject): CompiledValidator {
    switch (kind) {
      case 'dto':
        return compileDtoValidator(source as Type<object>, published);
      case 'zod':
        return compileZodValidator(source as ZodLikeSchema);
      case 'json-schema':
        return compileJsonSchema(source as JsonSchemaObject);
    }
  }
}
