import type { RegisteredTool } from '#libs/catalog';
import type { McpApproval } from './mcp-approval';

/** When an approval request expires, in words a model can pass on (UTC, to the minute). */
const until = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

/** What the model (and the person deciding) are told about a call that needs a person's approval. */
export const ConfirmationMessages = {
  question: (tool: RegisteredTool, args: unknown) =>
    `Allow "${tool.definition.title ?? tool.name}" to run with ${JSON.stringify(args)}?`,
  notConfirmed: (tool: string, action: string) =>
    `The user did not confirm "${tool}" (${action}); it was not run. Do not retry without asking the user.`,
  urlMessage: (tool: RegisteredTool, approval: McpApproval) =>
    `"${tool.definition.title ?? tool.name}" needs your approval before it runs. Open the page to review the call, and ` +
    `approve or deny it signed in as an approver, not with this client's key (until ${until(approval.expiresAt)}).`,
  pending: (tool: string, approval: McpApproval, sentToUser: boolean) =>
    `"${tool}" needs a person's approval before it runs, and it was not run. ` +
    (sentToUser ? 'The user was sent a link to approve it. ' : 'An approval request is waiting for an approver. ') +
    `Tell the user it awaits approval (until ${until(approval.expiresAt)}). Once it is approved, call "${tool}" again with exactly the same arguments: it then runs, once. ` +
    'Other arguments would need an approval of their own.',
  denied: (tool: string, approval: McpApproval) =>
    `"${tool}" was denied by ${approval.decidedBy}${approval.reason ? `: ${approval.reason}` : ''}. It was not run; do not retry unless the user asks for it.`,
  usedByAnother: (tool: string) =>
    `The approval of "${tool}" was used by another call of it with the same arguments, which ran; this one was not run. Call it again to ask for a new approval.`,
  expired: (tool: string) =>
    `Nobody approved "${tool}" in time; it was not run. Call it again to ask for a new approval.`,
} as const;
