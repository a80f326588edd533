import { ApprovalRequests, digestOfArguments, type McpApprovalEvent } from '#libs/invocation';
import { McpCluster } from '../replicas/mcp-cluster';
import { MapBackplane } from '../testing/map-backplane';
import { ClusterApprovalLedger } from './cluster-approval.ledger';

const details = {
  arguments: { archive: 'q1' },
  question: 'Allow?',
  channel: 'approvers' as const,
  client: null,
  transport: 'http' as const,
  ttlMs: 60_000,
};
const binding = { principal: 'agent', tool: 'wipe_archive', digest: digestOfArguments({ archive: 'q1' }) };

/** Two replicas' approval requests on one backplane, each with the events it emitted. */
function replicas() {
  const backplane = new MapBackplane();
  const clusters = ['r1', 'r2'].map((replica) => new McpCluster({ backplane, replica, namespace: 'desk' }));
  const [r1, r2] = clusters.map((cluster) => new ApprovalRequests(new ClusterApprovalLedger(cluster)));
  const events = new Map<ApprovalRequests, string[]>([
    [r1, []],
    [r2, []],
  ]);
  for (const [approvals, seen] of events)
    approvals.onEvent((event: McpApprovalEvent) => seen.push(`${event.type}:${event.approval.status}`));
  return { backplane, clusters, r1, r2, events };
}

describe('ApprovalRequests with the cluster option (ClusterApprovalLedger)', () => {
  let setup: ReturnType<typeof replicas>;
  beforeEach(async () => {
    setup = replicas();
    for (const cluster of setup.clusters) await cluster.onModuleInit();
    setup.r1.onModuleInit();
    setup.r2.onModuleInit();
  });
  afterEach(async () => {
    setup.r1.onApplicationShutdown();
    setup.r2.onApplicationShutdown();
    for (const cluster of setup.clusters) await cluster.onApplicationShutdown();
  });

  it('shows a request opened on one replica on the other, which decides it once', async () => {
    const { r1, r2, events } = setup;
    const opened = await r1.open(binding, details);
    expect(await r2.get(opened.id)).toEqual(opened);
    expect((await r2.list('pending')).map((approval) => approval.id)).toEqual([opened.id]);
    expect(await r2.current(binding)).toEqual(opened);

    const decisions = await Promise.allSettled([
      r1.decide(opened.id, true, 'ops', 'fine'),
      r2.decide(opened.id, false, 'boss'),
    ]);
    expect(decisions.map((decision) => decision.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = decisions.find((decision) => decision.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({
      status: 409,
      message: expect.stringMatching(/is already (approved|denied)/),
    });
    expect(await r2.list('pending')).toEqual([]);
    expect([...events.values()].flat().filter((event) => !event.startsWith('requested'))).toHaveLength(1);
  });

  it('is used once across replicas: of two retries at once, one gets it', async () => {
    const { r1, r2, events } = setup;
    const opened = await r1.open(binding, details);
    await r2.decide(opened.id, true, 'ops');
    const [standing1, standing2] = await Promise.all([r1.current(binding), r2.current(binding)]);
    expect([standing1?.status, standing2?.status]).toEqual(['approved', 'approved']);
    const used = await Promise.all([r1.use(standing1!), r2.use(standing2!), r1.use(standing1!)]);
    expect(used.filter(Boolean)).toHaveLength(1);
    expect(await r1.current(binding)).toBeUndefined();
    expect((await r2.get(opened.id))?.status).toBe('used');
    expect([...events.values()].flat().filter((event) => event.startsWith('used'))).toEqual(['used:used']);
  });

  it('wakes a call waiting on one replica when the request is decided on the other', async () => {
    const { r1, r2 } = setup;
    const opened = await r1.open(binding, details);
    const waiting = r1.waitForDecision(opened, 10_000, new AbortController().signal);
    await r2.decide(opened.id, true, 'ops');
    const started = Date.now();
    await expect(waiting).resolves.toBe('approved');
    // Woken by the message, not by the one-second poll.
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('expires a request on time on any replica, once', async () => {
    const { r1, r2, events } = setup;
    const opened = await r1.open(binding, { ...details, ttlMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 5));
    await Promise.all([r1.sweep(), r2.sweep()]);
    expect((await r2.get(opened.id))?.status).toBe('expired');
    expect([...events.values()].flat().filter((event) => event.startsWith('expired'))).toEqual(['expired:expired']);
    await expect(r2.decide(opened.id, true, 'ops')).rejects.toMatchObject({ status: 409 });
  });

  it('counts the waiting requests of a principal across replicas', async () => {
    const { r1, r2 } = setup;
    for (let i = 0; i < 10; i++) await r1.open({ ...binding, digest: `d${i}` }, details);
    for (let i = 10; i < 20; i++) await r2.open({ ...binding, digest: `d${i}` }, details);
    await expect(r1.open({ ...binding, digest: 'one-more' }, details)).rejects.toThrow(
      'agent already has 20 calls waiting for approval',
    );
  });

  it('fails closed while the backplane cannot be reached, saying so', async () => {
    const { r1, backplane } = setup;
    backplane.down = true;
    await expect(r1.current(binding)).rejects.toThrow(
      "The shared state of the host's replicas (approval requests) cannot be reached; retry shortly.",
    );
    backplane.down = false;
  });
});
