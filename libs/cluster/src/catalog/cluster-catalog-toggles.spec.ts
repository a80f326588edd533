import {
  LocalCatalogToggles,
  PromptRegistry,
  ResourceRegistry,
  ToolRegistry,
  type RegisteredTool,
} from '#libs/catalog';
import type { McpClusterBackplane, McpClusterMessage } from '../backplane/cluster-backplane';
import { McpCluster } from '../replicas/mcp-cluster';
import { ClusterCatalogToggles } from './cluster-catalog-toggles';

/**
 * The part of a backplane the toggles use, in memory; messages wait in `sent` until the spec
 * delivers them (the e2e spec runs the toggles on a real redis-server).
 */
function mapBackplane() {
  const values = new Map<string, string>();
  const index = new Set<string>();
  const listeners = new Set<(message: McpClusterMessage) => void>();
  const sent: McpClusterMessage[] = [];
  const backplane = {
    subscribe: async (listener: (message: McpClusterMessage) => void) => (listeners.add(listener), () => undefined),
    close: async () => undefined,
    publish: async (message: McpClusterMessage) => void sent.push(message),
    get: async (key: string) => (values.has(key) ? JSON.parse(values.get(key)!) : undefined),
    set: async (key: string, value: unknown) => void values.set(key, JSON.stringify(value)),
    delete: async (key: string) => void values.delete(key),
    indexAdd: async (_key: string, member: string) => void index.add(member),
    indexRemove: async (_key: string, member: string) => void index.delete(member),
    indexMembers: async () => [...index],
  };
  /** Hands every message sent so far to every replica, in the order they were sent. */
  const deliver = () => sent.splice(0).forEach((message) => listeners.forEach((listener) => listener(message)));
  return { backplane: backplane as unknown as McpClusterBackplane, deliver };
}

/** A replica: its catalog with one tool, its toggles, and how often its tool list changed. */
async function replica(backplane: McpClusterBackplane, name: string) {
  const cluster = new McpCluster({ backplane, replica: name, namespace: 'desk' });
  await cluster.onModuleInit();
  const tools = new ToolRegistry();
  tools.add([{ key: 'ping', where: 'PingTools.ping', definition: { name: 'ping' } } as RegisteredTool]);
  const changes: number[] = [];
  tools.onChange(() => changes.push(Date.now()));
  const toggles = new ClusterCatalogToggles(
    new LocalCatalogToggles(tools, new PromptRegistry(), new ResourceRegistry()),
    cluster,
  );
  toggles.onModuleInit();
  await toggles.onApplicationBootstrap();
  const stop = async () => (toggles.onModuleDestroy(), await cluster.onApplicationShutdown());
  return { tools, toggles, changes, stop, served: () => tools.get('ping') !== undefined };
}

/** Lets the toggles' writes and broadcasts (not awaited by `set`) run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('ClusterCatalogToggles', () => {
  afterEach(() => jest.restoreAllMocks());

  it('applies a toggle on every replica, each once, and on a replica started later', async () => {
    const { backplane, deliver } = mapBackplane();
    const r1 = await replica(backplane, 'r1');
    const r2 = await replica(backplane, 'r2');
    expect(r1.toggles.set('tool', 'ping', false)).toBe(true);
    expect(r1.served()).toBe(false);
    await settle();
    deliver();
    expect(r2.served()).toBe(false);
    expect([r1.changes.length, r2.changes.length]).toEqual([1, 1]);

    const r3 = await replica(backplane, 'r3');
    expect(r3.served()).toBe(false);
    r3.toggles.set('tool', 'ping', true);
    await settle();
    deliver();
    expect([r1.served(), r2.served(), r3.served()]).toEqual([true, true, true]);
    const r4 = await replica(backplane, 'r4');
    expect(r4.served()).toBe(true);
    for (const r of [r1, r2, r3, r4]) await r.stop();
  });

  it('ends the same on every replica when two toggle one entry at once: the later wins', async () => {
    const { backplane, deliver } = mapBackplane();
    const r1 = await replica(backplane, 'r1');
    const r2 = await replica(backplane, 'r2');
    const now = jest.spyOn(Date, 'now');
    now.mockReturnValue(2_000);
    r2.toggles.set('tool', 'ping', false);
    now.mockReturnValue(1_000);
    r1.toggles.set('tool', 'ping', true); // no change here, but it is sent: it is older than r2's
    now.mockReturnValue(3_000);
    r1.toggles.set('tool', 'ping', false);
    r1.toggles.set('tool', 'ping', true); // the latest
    await settle();
    deliver();
    expect([r1.served(), r2.served()]).toEqual([true, true]);
    for (const r of [r1, r2]) await r.stop();
  });

  it('says false, and sends nothing, for an entry this replica does not have', async () => {
    const { backplane, deliver } = mapBackplane();
    const r1 = await replica(backplane, 'r1');
    const r2 = await replica(backplane, 'r2');
    expect(r1.toggles.set('prompt', 'ping', false)).toBe(false);
    await settle();
    deliver();
    expect(r2.changes).toEqual([]);
    for (const r of [r1, r2]) await r.stop();
  });
});
