import type { ZodLikeSchema } from '#libs/core';
import type { CompiledValidator } from './validation-result';

interface ZodIssueLike {
  path: PropertyKey[];
  message: string;
}

/** Validates with the zod schema itself; the tool receives zod's parsed output. */
export function compileZodValidator(schema: ZodLikeSchema): CompiledValidator {
  return (value) => {
    const result = schema.safeParse(value);
    if (result.success) return { ok: true, value: result.data };
    const issues = ((result.error as { issues?: ZodIssueLike[] })?.issues ?? []).map(
      (issue) => `${issue.path.length ? issue.path.map(String).join('.') : '(arguments)'}: ${issue.message}`,
    );
    return { ok: false, issues };
  };
}
