import { createHmac } from 'node:crypto';
import { Injectable, Logger, Optional, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ApprovalRequests, type McpApprovalEvent } from '#libs/invocation';
import {
  AuditTrail,
  outboundFetch,
  OutboundPolicies,
  type AuditEntry,
  type AuditOutcome,
  type OutboundPolicy,
} from '#libs/security';
import { InjectOperationsOptions, type OperationsOptions } from '../options/operations.options';

const METHODS: Record<McpApprovalEvent['type'], string> = {
  requested: 'approvals/request',
  approved: 'approvals/approve',
  denied: 'approvals/deny',
  expired: 'approvals/expire',
  used: 'approvals/use',
};

/** The most bytes of the webhook's answer read (its body is not used). */
const MAX_ANSWER_BYTES = 64 * 1024;

/** The header of a webhook's signature: `sha256=<hex HMAC-SHA256 of the body>`. */
export const WEBHOOK_SIGNATURE_HEADER = 'x-mcp-signature';

/**
 * Tells the audit trail and the `approvals.webhook` of every approval request opened, decided,
 * expired or used: who did what, to which call of whose.
 */
@Injectable()
export class ApprovalEvents implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('McpApprovals');
  private unsubscribe: (() => void) | undefined;
  /** Where the webhook may be: the operator's URL (made with the first delivery). */
  private reach: OutboundPolicy | undefined;

  constructor(
    @InjectOperationsOptions() private readonly options: OperationsOptions,
    private readonly approvals: ApprovalRequests,
    @Optional() private readonly trail?: AuditTrail,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.approvals.onEvent((event) => {
      this.trail?.record(recordOf(event));
      if (this.options.approvals.webhook) void this.post(event);
    });
  }

  /** After the drain (Nest runs `onModuleDestroy` before it): the calls in flight still need this. */
  onApplicationShutdown(): void {
    this.unsubscribe?.();
  }

  private async post(event: McpApprovalEvent): Promise<void> {
    const webhook = this.options.approvals.webhook!;
    const { publicUrl } = this.options.approvals;
    const admin = this.options.admin?.path;
    const body = JSON.stringify({
      event: `approval.${event.type}`,
      actor: event.actor,
      approval: event.approval,
      // Where a person (or a chat-ops bot with an approver's credentials) decides it.
      ...(publicUrl &&
        admin && {
          links: {
            page: `${publicUrl}${admin}#approval=${event.approval.id}`,
            api: `${publicUrl}${admin}/api/approvals/${event.approval.id}`,
          },
        }),
    });
    const headers: Record<string, string> = { ...webhook.headers, 'content-type': 'application/json' };
    if (webhook.secret)
      headers[WEBHOOK_SIGNATURE_HEADER] = `sha256=${createHmac('sha256', webhook.secret).update(body).digest('hex')}`;
    try {
      this.reach ??= OutboundPolicies.configured([webhook.url], 'the approvals webhook');
      const response = await outboundFetch(
        webhook.url,
        { method: 'POST', headers, body },
        {
          purpose: 'the approvals webhook',
          policy: this.reach,
          timeoutMs: webhook.timeoutMs,
          timeoutOption: 'approvals.webhook.timeoutMs',
          maxBytes: MAX_ANSWER_BYTES,
        },
      );
      if (!response.ok)
        this.logger.warn(
          `The approvals webhook answered ${response.status} to approval.${event.type} of ${event.approval.tool}`,
        );
    } catch (error) {
      this.logger.warn(
        `The approvals webhook could not be told of approval.${event.type} of ${event.approval.tool}: ${(error as Error).message}`,
      );
    }
  }
}

/** The audit record of an approval event: its actor as principal, the tool as target. */
function recordOf({ type, approval, actor }: McpApprovalEvent): AuditEntry {
  const outcome: AuditOutcome = type === 'expired' ? 'timeout' : 'ok';
  return {
    startedAt: Date.now(),
    principal: actor,
    transport: approval.transport,
    client: type === 'requested' || type === 'used' ? approval.client : null,
    method: METHODS[type],
    target: approval.tool,
    // The request's arguments (already redacted) when it is opened; who and why when it is decided.
    arguments:
      type === 'requested'
        ? approval.arguments
        : { approval: approval.id, requester: approval.principal, ...(approval.reason && { reason: approval.reason }) },
    outcome,
    latencyMs: 0,
  };
}
