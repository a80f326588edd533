import type { StoredTask } from '#libs/protocol';
import { McpCluster } from '../replicas/mcp-cluster';
import { MapBackplane } from '../testing/map-backplane';
import { ClusterTaskStore } from './cluster-task.store';

const task = (taskId: string, fields: Partial<StoredTask> = {}): StoredTask => ({
  taskId,
  status: 'working',
  ttl: 60_000,
  createdAt: new Date(Date.now()).toISOString(),
  lastUpdatedAt: new Date(Date.now()).toISOString(),
  pollInterval: 500,
  owner: { principal: 'alice', session: undefined },
  expiresAt: Date.now() + 60_000,
  replica: 'r1',
  ...fields,
});

describe('ClusterTaskStore', () => {
  function setup() {
    const backplane = new MapBackplane();
    const cluster = (replica: string) => new McpCluster({ backplane, replica, namespace: 'desk' });
    const r1 = cluster('r1');
    const r2 = cluster('r2');
    const alive = (replica: string) => backplane.set(r1.key('replica', replica), { at: Date.now() }, 15_000);
    return { r1: new ClusterTaskStore(r1), r2: new ClusterTaskStore(r2), alive, state: backplane };
  }

  it('shares tasks between replicas, and lists an owner’s own, oldest first', async () => {
    const { r1, r2, alive } = setup();
    await alive('r1');
    await r1.save(task('second', { createdAt: '2026-01-02T00:00:00.000Z' }));
    await r1.save(task('first', { createdAt: '2026-01-01T00:00:00.000Z' }));
    await r1.save(task('bob', { owner: { principal: 'bob', session: undefined } }));
    await r1.save(task('other-session', { owner: { principal: 'alice', session: 's1' } }));
    await r1.save(task('expired', { expiresAt: Date.now() - 1 }));
    expect(await r2.get('second')).toMatchObject({ status: 'working', replica: 'r1' });
    expect(await r2.get('expired')).toBeUndefined();
    const { tasks, total } = await r2.list({ principal: 'alice', session: undefined }, 0, 10);
    expect(tasks.map((stored) => stored.taskId)).toEqual(['first', 'second']);
    expect(total).toBe(2);
    expect((await r2.list({ principal: 'alice', session: undefined }, 1, 10)).tasks).toHaveLength(1);
  });

  it('keeps the first ending: a later ending or update does not replace it', async () => {
    const { r1, r2, alive } = setup();
    await alive('r1');
    await r1.save(task('t'));
    await r2.save(task('t', { status: 'cancelled', statusMessage: 'Cancelled by the client' }));
    await r1.save(task('t', { status: 'completed', result: { content: [] } }));
    await r1.save(task('t', { status: 'input_required' }));
    expect(await r1.get('t')).toMatchObject({ status: 'cancelled', statusMessage: 'Cancelled by the client' });
  });

  it('fails the running tasks of a replica that stopped, for good, and leaves a live one’s alone', async () => {
    const { r1, r2, alive } = setup();
    // The replicas reading say they are alive, as their heartbeat does (see McpCluster.isAlive).
    await alive('r1');
    await alive('r2');
    await alive('r3');
    await r1.save(task('gone', { replica: 'r4' }));
    await r1.save(task('running', { replica: 'r3' }));
    await r1.save(task('mine', { replica: 'r2' }));
    const message = 'The replica running it (r4) stopped before the task ended; start the call again.';
    expect(await r2.get('gone')).toMatchObject({
      status: 'failed',
      statusMessage: message,
      error: { code: -32603, message },
    });
    await alive('r4'); // back under the same name: the task stays failed
    expect((await r1.get('gone'))?.status).toBe('failed');
    expect((await r2.get('running'))?.status).toBe('working');
    expect((await r2.get('mine'))?.status).toBe('working');
  });

  it('fails closed while the backplane cannot be reached, with a JSON-RPC error that says so', async () => {
    const { r2, state } = setup();
    state.down = true;
    await expect(r2.get('t')).rejects.toMatchObject({
      code: -32603,
      message: "The shared state of the host's replicas (tasks) cannot be reached; retry shortly.",
    });
  });
});
