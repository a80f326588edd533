import { Injectable } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { McpClientRequestError } from '#libs/core';
import type { RegisteredTool } from '#libs/catalog';
import type { CallContext } from '../context/call-context';
import { CONFIRMATION_TTL_MS, ConfirmationTokens } from './confirmation-tokens';

/** Where a client puts a confirmation token when it calls the tool again. */
export const CONFIRMATION_TOKEN_META = 'nest-mcp-host/confirmationToken';

/**
 * Human confirmation before a sensitive call. A call carrying a valid token in
 * `_meta["nest-mcp-host/confirmationToken"]` proceeds. Otherwise the user is asked through
 * elicitation when the client supports it; when it does not, the call is refused with a result
 * that explains what is needed and carries a single-use token (valid 5 minutes, for the same
 * tool, arguments and session) to send back.
 */
@Injectable()
export class ConfirmationGate {
  constructor(private readonly tokens: ConfirmationTokens) {}

  /** Resolves to `undefined` when the call may run, else to the result to return instead. */
  async check(tool: RegisteredTool, args: unknown, context: CallContext): Promise<CallToolResult | undefined> {
    if (this.tokens.redeem(context.meta[CONFIRMATION_TOKEN_META], tool.name, args, context.sessionId)) return undefined;
    const question = typeof tool.options.confirm === 'string' ? tool.options.confirm : `Allow "${tool.definition.title ?? tool.name}" to run with ${JSON.stringify(args)}?`;
    try {
      const answer = await context.elicit({
        message: question,
        requestedSchema: {
          type: 'object',
          properties: { confirm: { type: 'boolean', title: 'Run it', description: question, default: false } },
          required: ['confirm'],
        },
      });
      if (answer.action === 'accept' && answer.content?.confirm === true) return undefined;
      return refusal(`The user did not confirm "${tool.name}" (${answer.action}); it was not run. Do not retry without asking the user.`);
    } catch (error) {
      if (!(error instanceof McpClientRequestError) || (error.reason !== 'unsupported' && error.reason !== 'unreachable')) throw error;
    }
    const token = this.tokens.issue(tool.name, args, context.sessionId);
    return {
      content: [
        {
          type: 'text',
          text:
            `"${tool.name}" needs the user's confirmation and this client cannot ask for it. ` +
            `Ask the user: ${question} If they agree, call "${tool.name}" again with the same arguments and ` +
            `_meta {"${CONFIRMATION_TOKEN_META}": "${token}"} within ${CONFIRMATION_TTL_MS / 60_000} minutes. The token works once.`,
        },
      ],
      isError: true,
      _meta: { [CONFIRMATION_TOKEN_META]: token, 'nest-mcp-host/confirmationQuestion': question },
    };
  }
}

const refusal = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });
