import { SetMetadata } from '@nestjs/common';
import { MCP_PROMPT_METADATA } from '../mcp.constants';
import type { McpPromptOptions } from '../interfaces/mcp-prompt-options.interface';

/**
 * Publishes a provider method as an MCP prompt (`prompts/list`, `prompts/get`). The method
 * receives the arguments with `@McpArgs()` and returns a string, content, messages, or a full
 * `GetPromptResult`.
 *
 * @example
 * ```ts
 * @McpPrompt({
 *   description: 'Triage a ticket',
 *   args: [{ name: 'ticketId', description: 'Ticket to triage', required: true }],
 *   complete: { ticketId: (typed) => tickets.idsStartingWith(typed) },
 * })
 * triage(@McpArgs() { ticketId }: { ticketId: string }) {
 *   return `Triage ticket ${ticketId}: classify, prioritise, propose an assignee.`;
 * }
 * ```
 */
export const McpPrompt = (options: McpPromptOptions): MethodDecorator => SetMetadata(MCP_PROMPT_METADATA, options);
