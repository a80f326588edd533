import type { RegisteredTool } from '#libs/catalog';

/**
 * Whether a call of `tool` needs a person's agreement first: the tool's own `confirm` option wins
 * (`false` opts out); otherwise a destructive tool (`destructiveHint`) does when the host's
 * `confirmDestructive` is on. The one rule the tool methods, the dashboard's catalog and the
 * stdio approval page read.
 *
 * @example
 * ```ts
 * needsConfirmation(tool, options.tools.confirmDestructive); // true for close_ticket on the desk
 * ```
 */
export function needsConfirmation(tool: RegisteredTool, confirmDestructive: boolean): boolean {
  const { confirm, annotations } = tool.options;
  return confirm !== undefined ? confirm !== false : confirmDestructive && annotations?.destructiveHint === true;
}
