import type { Type } from '@nestjs/common';
import type { ValidationError } from 'class-validator';
import { optionalDependency, type JsonSchemaObject } from '#libs/core';
import { compileDtoFastPath } from './dto-fast-path';
import type { CompiledValidator } from './validation-result';
import { findWrongTypes } from './wrong-types';

// Loaded with the first DTO validator compiled (at start-up): hosts without DTOs load neither.
const FEATURE = 'a class-validator DTO as a schema';
const classValidator = optionalDependency('class-validator', FEATURE, (): typeof import('class-validator') =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require('class-validator'),
);
const classTransformer = optionalDependency('class-transformer', FEATURE, (): typeof import('class-transformer') =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require('class-transformer'),
);
const transformerStorage = optionalDependency(
  'class-transformer',
  FEATURE,
  (): import('class-transformer/types/MetadataStorage').MetadataStorage =>
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require('class-transformer/cjs/storage').defaultMetadataStorage,
);

/**
 * Validates with class-validator, as Nest's `ValidationPipe` would, and hands the tool a DTO
 * instance. Runs synchronously: async custom constraints are not supported on tool arguments.
 *
 * @param schema the DTO's published JSON Schema: where a value has the wrong type, its type error
 * is reported alone instead of every constraint it fails ("limit: must be an integer, not the
 * string \"3\"", not "must not be greater than 100; must not be less than 1; …")
 */
export function compileDtoValidator(dto: Type<object>, schema?: JsonSchemaObject): CompiledValidator {
  const { plainToInstance } = classTransformer();
  const validator = classValidator();
  const { validateSync } = validator;
  const fastPath = compileDtoFastPath(dto, validator, transformerStorage());
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return { ok: false, issues: ['(arguments): must be an object'] };
    }
    const fast = fastPath?.(value);
    if (fast) return { ok: true, value: fast };
    const instance = plainToInstance(dto, value);
    const errors = validateSync(instance, { forbidUnknownValues: false });
    if (errors.length === 0) return { ok: true, value: instance };
    // Worked out only for a failed call: the happy path pays nothing for it.
    const wrongTypes = schema ? findWrongTypes(schema, value) : undefined;
    return { ok: false, issues: describe(flatten(errors, ''), wrongTypes) };
  };
}

interface PropertyIssue {
  path: string;
  messages: string[];
}

/** The issues of each property, by path (`address.city`, `lines[0].sku`: array items are numbered). */
function flatten(errors: ValidationError[], parent: string): PropertyIssue[] {
  return errors.flatMap((error) => {
    const path = /^\d+$/.test(error.property)
      ? `${parent}[${error.property}]`
      : parent
        ? `${parent}.${error.property}`
        : error.property;
    const own = error.constraints ? [{ path, messages: Object.values(error.constraints) }] : [];
    return [...own, ...flatten(error.children ?? [], path)];
  });
}

/** One line per property; a property (or a parent of it) of the wrong type gets its type error only. */
function describe(issues: PropertyIssue[], wrongTypes: Map<string, string> | undefined): string[] {
  const lines: string[] = [];
  const told = new Set<string>();
  for (const { path, messages } of issues) {
    const typed = wrongTypes && typeErrorAt(path, wrongTypes);
    if (!typed) lines.push(`${path}: ${messages.join('; ')}`);
    else if (!told.has(typed)) {
      told.add(typed);
      lines.push(wrongTypes.get(typed)!);
    }
  }
  return lines;
}

/** The path of the type error that covers `path` (itself or a parent), if any. */
function typeErrorAt(path: string, wrongTypes: Map<string, string>): string | undefined {
  for (
    let current = path;
    current;
    current = current.slice(0, Math.max(current.lastIndexOf('.'), current.lastIndexOf('['), 0))
  ) {
    if (wrongTypes.has(current)) return current;
  }
  return undefined;
}
