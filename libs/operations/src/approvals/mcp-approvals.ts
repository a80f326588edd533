import { Injectable } from '@nestjs/common';
import type { McpPrincipal } from '#libs/core';
import { ApprovalDecisionError, ApprovalRequests, type McpApproval, type McpApprovalStatus } from '#libs/invocation';
import { InjectOperationsOptions, type OperationsOptions } from '../options/operations.options';
import { AdminMessages } from '../access/admin.messages';

const STATUSES = new Set<string>(['pending', 'approved', 'denied', 'expired', 'used']);

/**
 * The approval requests of confirmed calls, as a principal may see and decide them: what the
 * admin API, the dashboard, the approval page (on HTTP, or the loopback page of a stdio host) and
 * the CLI's `approvals` command answer, and what an in-process integration (a chat-ops bot in the
 * same app) calls. With the `cluster` option it sees and decides the requests of every replica.
 *
 * Who decides: an approver (an approver role or scope) who is not the principal whose call waits.
 * The host knows a person decided because the credential that decided is not the calling
 * program's: the program holds its own key or token, never an approver's. A decision by the
 * caller's own principal — on any surface, through URL-mode elicitation too — is refused (403)
 * unless `approvals.allowSelfApproval` says that the caller's credential is a person's.
 *
 * @example
 * ```ts
 * constructor(private readonly approvals: McpApprovals) {}
 * approveFromChat(approver: McpPrincipal, id: string) {
 *   return this.approvals.decide(approver, id, true, 'approved in #support-ops');
 * }
 * ```
 */
@Injectable()
export class McpApprovals {
  constructor(
    @InjectOperationsOptions() private readonly options: OperationsOptions,
    private readonly approvals: ApprovalRequests,
  ) {}

  /** An approver: one of the approver roles or scopes (`admin`/`approver`, `mcp:admin`/`mcp:approve` by default). */
  isApprover(principal: McpPrincipal): boolean {
    const { roles, scopes } = this.options.approvals;
    return (
      roles.some((role) => principal.roles.includes(role)) || scopes.some((scope) => principal.scopes.includes(scope))
    );
  }

  /**
   * Every request kept (approvers only), waiting ones first.
   * @throws ApprovalDecisionError 403 for others, 409 for a status that does not exist
   */
  async list(
    principal: McpPrincipal,
    status: string | undefined,
  ): Promise<{ approvals: McpApproval[]; principal: string }> {
    if (!this.isApprover(principal))
      throw new ApprovalDecisionError(AdminMessages.notApprover(principal.id, this.options.approvals), 403);
    if (status !== undefined && !STATUSES.has(status))
      throw new ApprovalDecisionError(AdminMessages.badStatus(status, [...STATUSES]), 409);
    return { approvals: await this.approvals.list(status as McpApprovalStatus | undefined), principal: principal.id };
  }

  /**
   * One request, for an approver or for the user it was sent to (URL-mode elicitation), who may
   * follow it on the approval page.
   * @throws ApprovalDecisionError 404 when the principal may not see it (as if it did not exist)
   */
  async get(principal: McpPrincipal, id: string): Promise<McpApproval> {
    const approval = await this.approvals.get(id);
    if (!approval || !this.maySee(principal, approval))
      throw new ApprovalDecisionError(`No approval request ${id}`, 404);
    return approval;
  }

  /** Whether `principal` may decide `approval` (which it may see): what the approval page offers. */
  mayDecide(principal: McpPrincipal, approval: McpApproval): boolean {
    return this.refusal(principal, approval) === undefined;
  }

  /**
   * Approves or denies a waiting request: an approver who is not its requester decides it. With
   * `allowSelfApproval`, the requester decides its own too (an approver any of its own, the user
   * a request was sent to by URL that one).
   * @throws ApprovalDecisionError 403 (its own request, or no approver), 404 or 409
   */
  async decide(
    principal: McpPrincipal,
    id: string,
    approve: boolean,
    reason: string | undefined,
  ): Promise<McpApproval> {
    const approval = await this.get(principal, id);
    const refused = this.refusal(principal, approval);
    if (refused) throw new ApprovalDecisionError(refused, 403);
    return this.approvals.decide(id, approve, principal.id, reason);
  }

  /** Why `principal` may not decide `approval`, or `undefined` when it may. */
  private refusal(principal: McpPrincipal, approval: McpApproval): string | undefined {
    const own = approval.principal === principal.id;
    const { allowSelfApproval } = this.options.approvals;
    // Checked first: the caller's own credential never proves that a person decided.
    if (own && !allowSelfApproval) return AdminMessages.selfApproval(principal.id);
    if (this.isApprover(principal) || (own && approval.channel === 'url')) return undefined;
    return AdminMessages.notApprover(principal.id, this.options.approvals);
  }

  private maySee(principal: McpPrincipal, approval: McpApproval): boolean {
    return this.isApprover(principal) || (approval.channel === 'url' && approval.principal === principal.id);
  }
}
