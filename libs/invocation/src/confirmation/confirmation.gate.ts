import { Injectable } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { McpClientRequestError } from '#libs/core';
import type { RegisteredTool } from '#libs/catalog';
import { redactSensitive, sensitiveFieldsOf } from '#libs/security';
import type { CallContext } from '../context/call-context';
import { InjectInvocationOptions, type InvocationOptions } from '../options/invocation.options';
import { ApprovalDecisionError, ApprovalRequests, digestOfArguments } from './approval-requests';
import type { McpApproval } from './mcp-approval';
import { ApprovalPageLocator } from './approval-page.locator';
import { ConfirmationMessages } from './confirmation.messages';
import { markCallFailure } from '../results/call-failure-mark';

/** Where a refused call says how its approval stands (never the approval's id: that is for people). */
export const APPROVAL_META = 'nest-mcp-host/approval';

/** The key of the confirmation in a 2026-07-28 `InputRequiredResult` (`inputRequests.confirmation`). */
export const CONFIRMATION_KEY = 'confirmation';

/**
 * How the confirmation is asked: under its key, and answered only on the retry of the round that
 * asked it (a 2026-07-28 client cannot confirm a call it was never asked about).
 */
const CONFIRMATION = { key: CONFIRMATION_KEY, onlyWhenAsked: true } as const;

/**
 * Human confirmation before a sensitive call. The person is asked, in this order:
 * 1. in the client, when it can show a form (`elicitation/create`, form mode): the user who
 *    made the call confirms or declines it there;
 * 2. otherwise an approval request is held by the host, bound to the principal, the tool and
 *    the arguments (never the session). With a client that supports URL-mode elicitation, the
 *    user is sent to the host's approval page, where an approver signs in to decide it; without
 *    one, it waits for an approver (the admin dashboard, the admin API, the CLI, a webhook's
 *    chat-ops integration). Either way the principal that made the call cannot decide it
 *    (unless `approvals.allowSelfApproval`): its credential is the program's, not a person's. The model
 *    is told the call awaits approval; its retry of the same call, by the same principal, runs
 *    once approved, and only once.
 *
 * Nothing the model can read or send approves a call: no token travels through the
 * conversation, and the approval's id is given only to people.
 */
@Injectable()
export class ConfirmationGate {
  constructor(
    private readonly approvals: ApprovalRequests,
    @InjectInvocationOptions() private readonly options: InvocationOptions,
    private readonly pages: ApprovalPageLocator,
  ) {}

  /** Resolves to `undefined` when the call may run, else to the result to return instead. */
  async check(tool: RegisteredTool, args: unknown, context: CallContext): Promise<CallToolResult | undefined> {
    const binding = { principal: context.caller.id, tool: tool.name, digest: digestOfArguments(args) };
    let standing = await this.approvals.current(binding);
    if (standing?.status === 'approved') {
      if (await this.approvals.use(standing)) return undefined;
      // Another call of it (on this replica or another) used it first: this one needs its own.
      standing = await this.approvals.current(binding);
    }
    if (standing?.status === 'denied') return refusal(ConfirmationMessages.denied(tool.name, standing));
    const question =
      typeof tool.options.confirm === 'string' ? tool.options.confirm : ConfirmationMessages.question(tool, args);
    if (!standing) {
      const asked = await this.askInClient(tool, question, context);
      if (asked !== 'unavailable') return asked;
    }
    // The approval page, where this client's user can be sent (when the host knows its address).
    const page = supportsUrlElicitation(context) ? this.pages.pageOf(context.headers) : undefined;
    const approval = standing ?? (await this.open(binding, tool, args, question, context, page !== undefined));
    if (approval instanceof ApprovalDecisionError) return refusal(approval.message);
    if (approval.channel === 'url' && page)
      return this.askByUrl(tool, approval, `${page}#approval=${approval.id}`, context);
    return pending(tool.name, approval, false);
  }

  /** Asks the user through a form in the client; `unavailable` when the client cannot show one. */
  private async askInClient(
    tool: RegisteredTool,
    question: string,
    context: CallContext,
  ): Promise<CallToolResult | undefined | 'unavailable'> {
    // Asked only of a client that declared forms: a 2026-07-28 request asking for more ends with -32021.
    if (!supportsFormElicitation(context)) return 'unavailable';
    try {
      const answer = await context.elicit(
        {
          message: question,
          requestedSchema: {
            type: 'object',
            properties: { confirm: { type: 'boolean', title: 'Run it', description: question, default: false } },
            required: ['confirm'],
          },
        },
        // What a 2026-07-28 client answers in `inputResponses`, and only when this host asked.
        CONFIRMATION,
      );
      if (answer.action === 'accept' && answer.content?.confirm === true) return undefined;
      return refusal(ConfirmationMessages.notConfirmed(tool.name, answer.action));
    } catch (error) {
      if (error instanceof McpClientRequestError && (error.reason === 'unsupported' || error.reason === 'unreachable'))
        return 'unavailable';
      throw error;
    }
  }

  /** Sends the user to the approval page and waits a while for the decision. */
  private async askByUrl(
    tool: RegisteredTool,
    approval: McpApproval,
    url: string,
    context: CallContext,
  ): Promise<CallToolResult | undefined> {
    let action: string;
    try {
      ({ action } = await context.elicit(
        {
          mode: 'url',
          elicitationId: approval.id,
          url,
          message: ConfirmationMessages.urlMessage(tool, approval),
        },
        CONFIRMATION,
      ));
    } catch (error) {
      if (error instanceof McpClientRequestError) return pending(tool.name, approval, false);
      throw error;
    }
    if (action === 'decline') {
      await this.approvals.decide(approval.id, false, approval.principal, 'declined in the client');
      return refusal(ConfirmationMessages.notConfirmed(tool.name, 'decline'));
    }
    if (action !== 'accept') return pending(tool.name, approval, true);
    const status = await this.approvals.waitForDecision(approval, this.options.approvals.waitMs, context.signal);
    if (status !== 'pending') context.completeElicitation(approval.id);
    if (status === 'approved') {
      if (await this.approvals.use(approval)) return undefined;
      return refusal(ConfirmationMessages.usedByAnother(tool.name));
    }
    if (status === 'denied') return refusal(ConfirmationMessages.denied(tool.name, approval));
    if (status === 'expired') return refusal(ConfirmationMessages.expired(tool.name));
    return pending(tool.name, approval, true);
  }

  private async open(
    binding: { principal: string; tool: string; digest: string },
    tool: RegisteredTool,
    args: unknown,
    question: string,
    context: CallContext,
    byUrl: boolean,
  ): Promise<McpApproval | ApprovalDecisionError> {
    try {
      return await this.approvals.open(binding, {
        // People deciding see the arguments, but not the fields the tool's schema marks sensitive.
        arguments: redactSensitive(args, sensitiveFieldsOf(tool.definition.inputSchema)),
        question,
        channel: byUrl ? 'url' : 'approvers',
        client: context.clientInfo ?? null,
        transport: context.transport,
        ttlMs: this.options.approvals.ttlMs,
      });
    } catch (error) {
      if (error instanceof ApprovalDecisionError) return error;
      throw error;
    }
  }
}

function supportsFormElicitation(context: CallContext): boolean {
  const elicitation = context.clientCapabilities.elicitation as Record<string, unknown> | undefined;
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
}

function supportsUrlElicitation(context: CallContext): boolean {
  const elicitation = context.clientCapabilities.elicitation as Record<string, unknown> | undefined;
  return elicitation?.url !== undefined;
}

/** The gate's answer in place of a call: audited as `denied`, not as the tool's own error. */
function refused(result: CallToolResult): CallToolResult {
  return markCallFailure(result, 'denied');
}

const refusal = (text: string): CallToolResult => refused({ content: [{ type: 'text', text }], isError: true });

/** The call waits for a decision: the model is told so, and how to retry. */
function pending(tool: string, approval: McpApproval, sentToUser: boolean): CallToolResult {
  return refused({
    content: [{ type: 'text', text: ConfirmationMessages.pending(tool, approval, sentToUser) }],
    isError: true,
    _meta: { [APPROVAL_META]: { status: 'pending', expiresAt: approval.expiresAt } },
  });
}
