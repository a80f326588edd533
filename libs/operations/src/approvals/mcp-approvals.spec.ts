import type { McpPrincipal } from '#libs/core';
import { ApprovalDecisionError, ApprovalRequests, digestOfArguments, type McpApprovalChannel } from '#libs/invocation';
import type { ApprovalPolicy, OperationsOptions } from '../options/operations.options';
import { McpApprovals } from './mcp-approvals';

const principal = (id: string, roles: string[] = []): McpPrincipal => ({ id, scopes: [], roles, claims: {} });
const AGENT = principal('agent');
const OPS = principal('ops', ['approver']);
const SELF = '"agent" may not decide a request of its own: another approver must (approvals.allowSelfApproval is off).';

function approvalsWith(allowSelfApproval: boolean): { approvals: McpApprovals; requests: ApprovalRequests } {
  const policy: ApprovalPolicy = {
    publicUrl: undefined,
    roles: ['admin', 'approver'],
    scopes: ['mcp:admin', 'mcp:approve'],
    allowSelfApproval,
    webhook: undefined,
    stdioPage: undefined,
  };
  const requests = new ApprovalRequests();
  return { approvals: new McpApprovals({ approvals: policy } as OperationsOptions, requests), requests };
}

async function open(requests: ApprovalRequests, requester: string, channel: McpApprovalChannel) {
  return requests.open(
    { principal: requester, tool: 'close_ticket', digest: digestOfArguments({ ticketId: requester }) },
    {
      arguments: { ticketId: requester },
      question: 'Allow?',
      channel,
      client: null,
      transport: 'http',
      ttlMs: 60_000,
    },
  );
}

describe('McpApprovals: who decides', () => {
  let made: ApprovalRequests[] = [];
  afterEach(() => {
    for (const requests of made) requests.onApplicationShutdown();
    made = [];
  });
  const setUp = (allowSelfApproval: boolean) => {
    const set = approvalsWith(allowSelfApproval);
    made.push(set.requests);
    return set;
  };

  it('refuses the requester its own request sent to it by URL, and lets another approver decide it', async () => {
    const { approvals, requests } = setUp(false);
    const request = await open(requests, 'agent', 'url');
    // The user it was sent to sees it on the approval page, but may not decide it.
    expect(await approvals.get(AGENT, request.id)).toBe(request);
    expect(approvals.mayDecide(AGENT, request)).toBe(false);
    await expect(approvals.decide(AGENT, request.id, true, undefined)).rejects.toThrow(
      new ApprovalDecisionError(SELF, 403),
    );
    await expect(approvals.decide(AGENT, request.id, false, undefined)).rejects.toThrow(
      new ApprovalDecisionError(SELF, 403),
    );
    expect(approvals.mayDecide(OPS, request)).toBe(true);
    expect(await approvals.decide(OPS, request.id, true, 'checked')).toMatchObject({
      status: 'approved',
      decidedBy: 'ops',
    });
  });

  it('refuses an approver its own request, and needs an approver for anyone else', async () => {
    const { approvals, requests } = setUp(false);
    const own = await open(requests, 'ops', 'approvers');
    await expect(approvals.decide(OPS, own.id, true, undefined)).rejects.toThrow(
      new ApprovalDecisionError(
        '"ops" may not decide a request of its own: another approver must (approvals.allowSelfApproval is off).',
        403,
      ),
    );
    const other = await open(requests, 'other-agent', 'url');
    await expect(approvals.decide(AGENT, other.id, true, undefined)).rejects.toMatchObject({ status: 404 });
  });

  it('lets the requester decide its own with allowSelfApproval, as before', async () => {
    const { approvals, requests } = setUp(true);
    const byUrl = await open(requests, 'agent', 'url');
    expect(approvals.mayDecide(AGENT, byUrl)).toBe(true);
    expect(await approvals.decide(AGENT, byUrl.id, true, undefined)).toMatchObject({ decidedBy: 'agent' });
    const ownOfApprover = await open(requests, 'ops', 'approvers');
    expect(await approvals.decide(OPS, ownOfApprover.id, false, undefined)).toMatchObject({ status: 'denied' });
    // Still only an approver decides a request that was never sent to its requester.
    const waiting = await open(requests, 'other-agent', 'approvers');
    await expect(approvals.decide(principal('other-agent'), waiting.id, true, undefined)).rejects.toMatchObject({
      status: 404,
    });
  });
});
