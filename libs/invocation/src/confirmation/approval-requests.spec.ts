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
    approvals.onApplicationShutdown();
    jest.useRealTimers();
  });

  it('binds a request to the principal, the tool and the arguments, whatever their key order', async () => {
    const opened = await approvals.open(binding('agent', { a: 1, b: 2 }), details);
    expect(await approvals.current(binding('agent', { b: 2, a: 1 }))).toBe(opened);
    expect(await approvals.current(binding('someone-else', { a: 1, b: 2 }))).toBeUndefined();
    expect(await approvals.current(binding('agent', { a: 1, b: 3 }))).toBeUndefined();
  });

  it('is decided once, used once, and tells its listeners each time', async () => {
    const opened = await approvals.open(binding(), details);
    await approvals.decide(opened.id, true, 'ops', '  fine  ');
    await expect(approvals.decide(opened.id, false, 'boss')).rejects.toThrow(
      new ApprovalDecisionError(`Approval request ${opened.id} is already approved`, 409),
    );
    expect(await approvals.use(opened)).toBe(true);
    expect(await approvals.use(opened)).toBe(false);
    expect(await approvals.current(binding())).toBeUndefined();
    expect(events.map((event) => [event.type, event.actor, event.approval.status])).toEqual([
      ['requested', 'agent', 'pending'],
      ['approved', 'ops', 'approved'],
      ['used', 'agent', 'used'],
    ]);
    expect(opened).toMatchObject({ decidedBy: 'ops', reason: 'fine' });
  });

  it('expires a request nobody decided, on a timer, and wakes whoever waits for it', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const opened = await approvals.open(binding(), { ...details, ttlMs: 2_000 });
    const waiting = approvals.waitForDecision(opened, 60_000, new AbortController().signal);
    jest.advanceTimersByTime(6_000);
    await expect(waiting).resolves.toBe('expired');
    expect(events.map((event) => [event.type, event.actor])).toEqual([
      ['requested', 'agent'],
      ['expired', null],
    ]);
    await expect(approvals.decide(opened.id, true, 'ops')).rejects.toThrow('is already expired');
  });

  it('gives up waiting after the time it was given, with the request still pending', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const opened = await approvals.open(binding(), details);
    const waiting = approvals.waitForDecision(opened, 500, new AbortController().signal);
    jest.advanceTimersByTime(600);
    await expect(waiting).resolves.toBe('pending');
  });

  it('refuses a principal with too many requests waiting, so no one floods the approvers', async () => {
    for (let i = 0; i < 20; i++) await approvals.open(binding('agent', { id: i }), details);
    await expect(approvals.open(binding('agent', { id: 99 }), details)).rejects.toThrow(
      'agent already has 20 calls waiting for approval',
    );
    expect((await approvals.open(binding('other', { id: 99 }), details)).status).toBe('pending');
  });
});
