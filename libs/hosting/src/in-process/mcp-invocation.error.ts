import { JsonRpcError } from '#libs/core';
import type { AuditOutcome } from '#libs/security';

/**
 * A request made through `McpInvoker` that the host refused with a JSON-RPC error (an unknown
 * tool, arguments that fail the input schema, a credential that is not valid, a host that is not
 * ready). `outcome` is what the audit trail recorded, so a caller can tell a refusal (`denied`,
 * `unauthenticated`, `throttled`) from a mistake (`invalid`) or a missing entry (`not_found`).
 * A tool that fails is not an error: its result comes back with `isError`.
 * @example
 * ```ts
 * try {
 *   await invoker.callTool('close_ticket', { ticketId: 'T-1' });
 * } catch (error) {
 *   if (error instanceof McpInvocationError && error.outcome === 'denied') console.error('not allowed');
 * }
 * ```
 */
export class McpInvocationError extends JsonRpcError {
  constructor(
    code: number,
    message: string,
    readonly outcome: AuditOutcome,
    data?: unknown,
  ) {
    super(code, message, data);
    this.name = 'McpInvocationError';
  }
}
