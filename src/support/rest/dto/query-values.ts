import type { TransformFnParams } from 'class-transformer';

// A query string carries text only: these turn the texts a client means as a boolean or a number
// into one, and leave anything else as it came, for the validator to name the field.

/** `"true"` → true, `"false"` → false. */
export function booleanQueryValue({ value }: TransformFnParams): unknown {
  if (value === 'true') return true;
  if (value === 'false') return false;
  return value;
}

/** `"20"` → 20; `"twenty"` and `""` stay text, so that `@IsInt` refuses them. */
export function integerQueryValue({ value }: TransformFnParams): unknown {
  return typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
}

/** `"id,priority"` → `['id', 'priority']` (a repeated parameter arrives as a list already). */
export function listQueryValue({ value }: TransformFnParams): unknown {
  return typeof value === 'string' ? value.split(',').map((item) => item.trim()) : value;
}
