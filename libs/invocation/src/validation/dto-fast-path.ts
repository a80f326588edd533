import type { Type } from '@nestjs/common';
import type { ValidationArguments } from 'class-validator';

type ClassValidator = typeof import('class-validator');
/** class-transformer's own metadata store (what `@Type`, `@Transform`, `@Expose`, `@Exclude` write). */
type TransformerStorage = import('class-transformer/types/MetadataStorage').MetadataStorage;

/** One constraint of a property: the constraint instance class-validator runs, and its metadata. */
interface Check {
  /** Resolved from class-validator's container on first use (a host may set its container after start-up). */
  instance: () => { validate(value: unknown, args: ValidationArguments): unknown };
  constraints: unknown[];
}

interface PropertyChecks {
  name: string;
  /** `@IsOptional()`, `@ValidateIf()`: the property is checked only when they all say so. */
  conditions: ((object: object, value: unknown) => boolean)[];
  checks: Check[];
}

/**
 * The DTO instance for `value` when it is valid, worked out without class-transformer's and
 * class-validator's general machinery; `undefined` when the call must take the full way (a value
 * this path does not cover, or an invalid one: the full way words the messages).
 */
export type DtoFastPath = (value: object) => object | undefined;

const PLAIN_TO_CLASS = 0; // class-transformer's TransformationType.PLAIN_TO_CLASS

/**
 * Compiles the fast path of a DTO whose decorators are all plain constraints (`@IsNumber()`,
 * `@Max()`, `@IsOptional()`, custom synchronous constraints, …) on properties that
 * class-transformer copies as they are (no `@Type`, `@Transform`, `@Expose` or `@Exclude`).
 *
 * It runs the very constraint instances `validateSync` runs, with the same arguments, so a value
 * it accepts is one class-validator accepts, and it builds the instance as `plainToInstance` does
 * for flat values (a new DTO, each own key copied). Nested objects and arrays, unknown keys,
 * groups, `each`, nested or promise validation: `undefined` here, the full way there.
 *
 * @returns undefined when the DTO uses anything this path does not cover
 */
export function compileDtoFastPath(
  dto: Type<object>,
  validator: ClassValidator,
  transformer: TransformerStorage,
): DtoFastPath | undefined {
  if (transformer.getExposedMetadatas(dto).length > 0 || transformer.getExcludedMetadatas(dto).length > 0)
    return undefined;
  const storage = validator.getMetadataStorage();
  // The same selection `validateSync(instance, { forbidUnknownValues: false })` makes.
  const metadatas = storage.getTargetValidationMetadatas(dto, '', false, false, undefined);
  const properties = new Map<string, PropertyChecks>();
  for (const metadata of metadatas) {
    const name = metadata.propertyName;
    if (typeof name !== 'string' || metadata.each || (metadata.groups && metadata.groups.length > 0)) return undefined;
    if (!isPlainProperty(dto, name, transformer)) return undefined;
    let property = properties.get(name);
    if (!property) properties.set(name, (property = { name, conditions: [], checks: [] }));
    switch (metadata.type) {
      case validator.ValidationTypes.CONDITIONAL_VALIDATION:
        property.conditions.push(metadata.constraints[0] as PropertyChecks['conditions'][number]);
        break;
      case validator.ValidationTypes.CUSTOM_VALIDATION:
      case validator.ValidationTypes.IS_DEFINED:
        for (const constraint of storage.getTargetValidatorConstraints(metadata.constraintCls)) {
          // validateSync skips asynchronous constraints: so does this path.
          if (constraint.async) continue;
          property.checks.push({ instance: once(() => constraint.instance), constraints: metadata.constraints });
        }
        break;
      case validator.ValidationTypes.WHITELIST:
        break;
      default:
        return undefined; // nested or promise validation
    }
  }
  const checked = [...properties.values()];
  const known = new Set(properties.keys());
  const targetName = dto.name;

  return (value) => {
    const instance = new dto() as Record<string, unknown>;
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const field = (value as Record<string, unknown>)[key];
      // Objects and arrays are copied deeply by class-transformer; a method is never overwritten.
      if (!known.has(key) || (typeof field === 'object' && field !== null) || typeof instance[key] === 'function')
        return undefined;
      instance[key] = field;
    }
    for (const property of checked) {
      const field = instance[property.name];
      if (!holds(property.conditions, instance, field)) continue;
      for (const check of property.checks) {
        const outcome = check.instance().validate(field, {
          targetName,
          property: property.name,
          object: instance,
          value: field,
          constraints: check.constraints,
        });
        // false, or a promise class-validator would not wait for: the full way decides and words it.
        if (outcome !== true) return undefined;
      }
    }
    return instance;
  };
}

/** A property class-transformer copies as it is: no metadata of its own, no accessor or method of the class. */
function isPlainProperty(dto: Type<object>, name: string, transformer: TransformerStorage): boolean {
  if (name === '__proto__' || name in dto.prototype) return false;
  return (
    transformer.findTypeMetadata(dto, name) === undefined &&
    transformer.findTransformMetadatas(dto, name, PLAIN_TO_CLASS).length === 0 &&
    transformer.findExposeMetadataByCustomName(dto, name) === undefined
  );
}

function holds(conditions: PropertyChecks['conditions'], object: object, value: unknown): boolean {
  for (const condition of conditions) if (!condition(object, value)) return false;
  return true;
}

function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
