import type { McpTransportKind } from '#libs/core';

/** Where an approval request stands. `used`: approved, and the call it approved has run. */
export type McpApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'used';

/**
 * How the request reached a person: `url` — the user was sent to the approval page by URL-mode
 * elicitation (an approver signs in there to decide it; the principal that made the call only
 * with `allowSelfApproval`); `approvers` — it waits for an approver on the dashboard, the admin
 * API, the CLI or a chat-ops integration.
 */
export type McpApprovalChannel = 'url' | 'approvers';

/** An approval request, as the admin API, the dashboard and webhooks show it. */
export interface McpApproval {
  id: string;
  tool: string;
  /** The principal whose call waits; only its retry with the same arguments runs once approved. */
  principal: string;
  /** The call's arguments, with fields marked sensitive redacted. */
  arguments: unknown;
  /** The question put to the person deciding. */
  question: string;
  status: McpApprovalStatus;
  channel: McpApprovalChannel;
  createdAt: string;
  expiresAt: string;
  client: { name: string; version: string } | null;
  /** The transport of the call that waits. */
  transport: McpTransportKind;
  decidedBy: string | null;
  decidedAt: string | null;
  reason: string | null;
}

/** The call an approval is bound to: who, which tool, which arguments (never a session). */
export interface ApprovalBinding {
  principal: string;
  tool: string;
  /** `digestOfArguments(args)`. */
  digest: string;
}
