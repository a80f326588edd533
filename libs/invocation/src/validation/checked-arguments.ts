declare const CHECKED: unique symbol;

/**
 * A tool's arguments as `ToolInvoker.check` let them through: undeclared ones refused (or
 * stripped), types and required fields checked, a DTO made. Only a type: the value is the
 * arguments themselves (nothing is wrapped, nothing allocated), and `ToolInvoker.invoke` takes
 * nothing else, so a call cannot run with arguments no one checked.
 */
export type CheckedArguments = { readonly [CHECKED]: true };

/** Arguments that fail a tool's schema: each problem, as the caller is told (`- status: must be …`). */
export class InvalidArguments {
  constructor(readonly issues: readonly string[]) {}
}
