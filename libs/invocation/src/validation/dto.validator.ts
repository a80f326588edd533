import type { Type } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import type { CompiledValidator } from './validation-result';

/**
 * Validates with class-validator, as Nest's `ValidationPipe` would, and hands the tool a DTO
 * instance. Runs synchronously: async custom constraints are not supported on tool arguments.
 */
export function compileDtoValidator(dto: Type<object>): CompiledValidator {
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return { ok: false, issues: ['(arguments): must be an object'] };
    }
    const instance = plainToInstance(dto, value);
    const errors = validateSync(instance, { forbidUnknownValues: false });
    return errors.length === 0 ? { ok: true, value: instance } : { ok: false, issues: flatten(errors, '') };
  };
}

function flatten(errors: ValidationError[], prefix: string): string[] {
  return errors.flatMap((error) => {
    const path = `${prefix}${error.property}`;
    const own = error.constraints ? [`${path}: ${Object.values(error.constraints).join('; ')}`] : [];
    return [...own, ...flatten(error.children ?? [], `${path}.`)];
  });
}
