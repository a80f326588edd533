import { SetMetadata } from '@nestjs/common';
import { MCP_COMPLETION_METADATA } from '../mcp.constants';

/** What `@McpCompletion` completes: an argument of a prompt, or a variable of a resource template. */
export type McpCompletionOptions = { prompt: string; argument: string } | { template: string; argument: string };

/**
 * Marks a provider method as the completer of one prompt argument or template variable
 * (`completion/complete`), with the provider's dependencies at hand. The method receives what
 * the user typed and `{ arguments }` already given, and returns matching values, best first.
 *
 * @example
 * ```ts
 * @McpCompletion({ prompt: 'triage_ticket', argument: 'ticketId' })
 * ticketIds(typed: string) {
 *   return this.tickets.openIds().filter((id) => id.startsWith(typed));
 * }
 * ```
 */
export const McpCompletion = (options: McpCompletionOptions): MethodDecorator =>
  SetMetadata(MCP_COMPLETION_METADATA, options);
