import { Injectable } from '@nestjs/common';
import type { McpPrincipal } from '#libs/core';
import { ApprovalDecisionError, ApprovalRequests, type McpApproval, type McpApprovalStatus } from '#libs/invocation';
import { InjectOperationsOptions, type OperationsOptions } from '../options/operations.options';
import { AdminMessages } from '../access/admin.messages';

const STATUSES = new Set<string>(['pending', 'approved', 'denied', 'expired', 'used']);

/**
 * The approval requests of confirmed calls, as a principal may see and decide them: what the
 * admin API answers, and what an in-process integration (a chat-ops bot in the same app) calls.
 * With the `cluster` option it sees and decides the requests of every replica.
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
   * One request, for an approver or for the user it was sent to (URL-mode elicitation).
   * @throws ApprovalDecisionError 404 when the principal may not see it (as if it did not exist)
   */
  async get(principal: McpPrincipal, id: string): Promise<McpApproval> {
    const approval = await this.approvals.get(id);
    if (!approval || !this.maySee(principal, approval))
      throw new ApprovalDecisionError(`No approval request ${id}`, 404);
    return approval;
  }

  /**
   * Approves or denies a waiting request. An approver may not decide their own principal's
   * request unless `allowSelfApproval`; the user a request was sent to by URL decides their own.
   * @throws ApprovalDecisionError 403, 404 or 409
   */
  async decide(
    principal: McpPrincipal,
    id: string,
    approve: boolean,
    reason: string | undefined,
  ): Promise<McpApproval> {
    const approval = await this.get(principal, id);
    const own = approval.principal === principal.id;
    if (own && !(approval.channel === 'url' || this.options.approvals.allowSelfApproval)) {
      throw new ApprovalDecisionError(AdminMessages.selfApproval(principal.id), 403);
    }
    return this.approvals.decide(id, approve, principal.id, reason);
  }

  private maySee(principal: McpPrincipal, approval: McpApproval): boolean {
    return this.isApprover(principal) || (approval.channel === 'url' && approval.principal === principal.id);
  }
}
