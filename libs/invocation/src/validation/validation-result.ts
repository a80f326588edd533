/** The outcome of validating a value against a compiled schema. */
export type ValidationResult = { ok: true; value: unknown } | { ok: false; issues: string[] };

/** A validator compiled once per schema and reused for every call. */
export type CompiledValidator = (value: unknown) => ValidationResult;
