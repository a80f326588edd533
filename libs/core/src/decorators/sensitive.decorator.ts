/* eslint-disable @typescript-eslint/no-unsafe-function-type -- DTO classes (`target.constructor`, a `Function`)
   are map keys here: compared, never called. */
/** DTO classes and their properties marked `@Sensitive()` (decorators run once, at class definition). */
const SENSITIVE_PROPERTIES = new Map<Function, Set<string>>();

/**
 * Marks a DTO property as sensitive: the audit trail records `"[REDACTED]"` instead of its value
 * (the argument digest still covers it). In the tool's input schema it appears as
 * `"x-sensitive": true`; with zod or JSON Schema inputs, put that keyword (or `writeOnly: true`)
 * on the field yourself.
 *
 * @example
 * ```ts
 * class ResetPasswordDto {
 *   @IsString() login!: string;
 *   @Sensitive() @IsString() @MinLength(12) newPassword!: string;
 * }
 * ```
 */
export function Sensitive(): PropertyDecorator {
  return (target, property) => {
    const type = target.constructor;
    const properties = SENSITIVE_PROPERTIES.get(type) ?? new Set<string>();
    properties.add(String(property));
    SENSITIVE_PROPERTIES.set(type, properties);
  };
}

/** @internal every class with `@Sensitive()` properties, for the schema generator. */
export function sensitiveDtoProperties(): ReadonlyMap<Function, ReadonlySet<string>> {
  return SENSITIVE_PROPERTIES;
}
