import { ApprovalDecisionError, ApprovalRequests, digestOfArguments, type McpApprovalEvent } from './approval-requests';

const details = {
  arguments: { id: 1 },
  question: 'Allow?',
  channel: 'approvers' as const,
  client: null,
  transport: 'http' as const,
  ttlMs: 60_000,
};
const binding = (principal = 'agent', args: unknown = { id: 1 }) => ({
  principal,
  tool: 'close_ticket',
  digest: digestOfArguments(args),
});

describe('ApprovalRequests', () => {
  let approvals: ApprovalRequests;
  let events: McpApprovalEvent[];
  beforeEach(() => {
    approvals = new ApprovalRequests();
    events = [];
    approvals.onEvent((event) => events.push({ ...event, approval: { ...event.approval } }));
  });
  afterEach(() => {
    approvals.onModuleDestroy();
    jest.useRealTimers();
  });

  it('binds a request to the principal, the tool and the arguments, whatever their key order', () => {
    const opened = approvals.open(binding('agent', { a: 1, b: 2 }), details);
    expect(approvals.current(binding('agent', { b: 2, a: 1 }))).toBe(opened);
    expect(approvals.current(binding('someone-else', { a: 1, b: 2 }))).toBeUndefined();
    expect(approvals.current(binding('agent', { a: 1, b: 3 }))).toBeUndefined();
  });

  it('is decided once, used once, and tells its listeners each time', () => {
    const opened = approvals.open(binding(), details);
    approvals.decide(opened.id, true, 'ops', '  fine  ');
    expect(() => approvals.decide(opened.id, false, 'boss')).toThrow(
      new ApprovalDecisionError(`Approval request ${opened.id} is already approved`, 409),
    );
    approvals.use(opened);
    approvals.use(opened);
    expect(approvals.current(binding())).toBeUndefined();
    expect(events.map((event) => [event.type, event.actor, event.approval.status])).toEqual([
      ['requested', 'agent', 'pending'],
      ['approved', 'ops', 'approved'],
      ['used', 'agent', 'used'],
    ]);
    expect(opened).toMatchObject({ decidedBy: 'ops', reason: 'fine' });
  });

  it('expires a request nobody decided, on a timer, and wakes whoever waits for it', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const opened = approvals.open(binding(), { ...details, ttlMs: 2_000 });
    const waiting = approvals.waitForDecision(opened, 60_000, new AbortController().signal);
    jest.advanceTimersByTime(6_000);
    await expect(waiting).resolves.toBe('expired');
    expect(events.map((event) => [event.type, event.actor])).toEqual([
      ['requested', 'agent'],
      ['expired', null],
    ]);
    expect(() => approvals.decide(opened.id, true, 'ops')).toThrow('is already expired');
  });

  it('gives up waiting after the time it was given, with the request still pending', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const opened = approvals.open(binding(), details);
    const waiting = approvals.waitForDecision(opened, 500, new AbortController().signal);
    jest.advanceTimersByTime(600);
    await expect(waiting).resolves.toBe('pending');
  });

  it('refuses a principal with too many requests waiting, so no one floods the approvers', () => {
    for (let i = 0; i < 20; i++) approvals.open(binding('agent', { id: i }), details);
    expect(() => approvals.open(binding('agent', { id: 99 }), details)).toThrow(
      'agent already has 20 calls waiting for approval',
    );
    expect(approvals.open(binding('other', { id: 99 }), details).status).toBe('pending');
  });
});
