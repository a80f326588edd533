/**
 * A copy of `value` whose objects have no prototype (arrays copied, other values kept): reading
 * a property that was not sent gives `undefined`, whatever its name. Validators (Ajv, zod) read a
 * declared property as `value[name]`; on a plain object an absent `toString` or `constructor` is
 * Object's own method, which they then report as a wrong value, or take for the argument. Used
 * only for tools whose schema declares such a name (worked out once per tool): every other call
 * keeps the parsed arguments as they are.
 *
 * @example
 * ```ts
 * ownArguments(JSON.parse('{"note":{"text":"x"}}')).note.toString; // undefined
 * ```
 */
export function ownArguments(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(ownArguments);
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  // Own enumerable keys only; a key named `__proto__` is an ordinary property on a null-prototype object.
  for (const key of Object.keys(value)) copy[key] = ownArguments((value as Record<string, unknown>)[key]);
  return copy;
}
