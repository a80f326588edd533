import type { IncomingMessage } from 'node:http';
import { Injectable } from '@nestjs/common';
import { JsonRpcError, type McpPrincipal } from '#libs/core';
import { ApprovalDecisionError } from '#libs/invocation';
import { AdminAccess, refusalHeaders } from '../access/admin-access';
import { AdminMessages } from '../access/admin.messages';
import { McpApprovals } from '../approvals/mcp-approvals';

/** An answer of the approvals API: its status, JSON body and extra headers. */
export interface ApprovalsHttpAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** The approvals feature recorded this outcome in the audit trail (a decision, or its refusal). */
  recorded?: true;
}

/** What the approvals API's refusals call it. */
export const APPROVALS_SURFACE = 'approvals API';
const SURFACE = APPROVALS_SURFACE;
const ERRORS: Record<number, string> = { 403: 'forbidden', 404: 'not_found', 409: 'conflict' };

/**
 * The approvals API over HTTP, wherever it is served: under the admin dashboard of an HTTP host
 * (`<admin path>/api/approvals…`), and on the loopback approval page of a host without HTTP
 * (`StdioApprovalServer`). Every request is authenticated as on the MCP endpoint (`AdminAccess`);
 * what the principal may see and decide is `McpApprovals`'.
 *
 * - `GET …/approvals[?status=]`: the list (approvers);
 * - `GET …/approvals/:id`: one request, with whether this principal is an approver and may decide it;
 * - `POST …/approvals/:id/{approve,deny}` with `Content-Type: application/json` and an optional
 *   `{ "reason": "…" }`: a form on another site cannot send that without a CORS preflight, which
 *   this API never grants.
 *
 * Refusals are audited; while the shared state of the replicas cannot be reached it answers 503.
 * Under the dashboard, the admin API's route table (`AdminRoutes`) runs the checks before
 * `answerAs`; the stdio page's server calls `answer`, which runs them itself.
 * @internal for the dashboard and the stdio approval page
 */
@Injectable()
export class ApprovalsHttpApi {
  constructor(
    private readonly access: AdminAccess,
    private readonly approvals: McpApprovals,
  ) {}

  /**
   * @param path the URL path from `…/api/approvals` on (`/api/approvals/<id>/approve`), with its query
   * @param body the request's JSON body, parsed (a POST's)
   */
  async answer(req: IncomingMessage, path: string, body: unknown): Promise<ApprovalsHttpAnswer> {
    if (req.method === 'POST' && !String(req.headers['content-type'] ?? '').startsWith('application/json')) {
      return {
        status: 415,
        body: { error: 'unsupported_media_type', message: 'Send the decision as Content-Type: application/json' },
      };
    }
    const access = await this.access.authenticate(req, SURFACE);
    if (!access.ok)
      return {
        status: access.status,
        body: { error: access.error, message: access.message },
        headers: refusalHeaders(access, 'mcp-admin'),
      };
    return this.answerAs(req, access.principal, path, body);
  }

  /** The answer to an authenticated `principal` (the content type checked already). */
  async answerAs(
    req: IncomingMessage,
    principal: McpPrincipal,
    path: string,
    body: unknown,
  ): Promise<ApprovalsHttpAnswer> {
    const url = new URL(path, 'http://admin.invalid');
    const [id, decision] = url.pathname
      .slice(url.pathname.indexOf('/api/approvals') + '/api/approvals'.length)
      .split('/')
      .filter(Boolean);
    try {
      if (!id)
        return {
          status: 200,
          body: await this.approvals.list(principal, url.searchParams.get('status')?.trim() || undefined),
        };
      if (req.method !== 'POST') {
        const approval = await this.approvals.get(principal, id);
        const approver = this.approvals.isApprover(principal);
        return { status: 200, body: { approval, approver, mayDecide: this.approvals.mayDecide(principal, approval) } };
      }
      if (decision !== 'approve' && decision !== 'deny')
        return { status: 404, body: { error: 'not_found', message: AdminMessages.badDecision(decision) } };
      const reason = (body as { reason?: unknown } | undefined)?.reason;
      const decided = await this.approvals.decide(
        principal,
        id,
        decision === 'approve',
        typeof reason === 'string' ? reason : undefined,
      );
      // Recorded by the approvals feature (`approvals/approve`, `approvals/deny`: who decided, why).
      return { status: 200, body: { approval: decided }, recorded: true };
    } catch (error) {
      // The shared state of the replicas cannot be reached: nothing was decided, retry shortly.
      if (error instanceof JsonRpcError)
        return { status: 503, body: { error: 'unavailable', message: error.message }, headers: { 'retry-after': '1' } };
      if (!(error instanceof ApprovalDecisionError)) throw error;
      this.access.refused(req, SURFACE, error.status, error.message, principal.id);
      return { status: error.status, body: { error: ERRORS[error.status], message: error.message }, recorded: true };
    }
  }
}
