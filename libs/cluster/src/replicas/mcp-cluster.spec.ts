import { MapBackplane } from '../testing/map-backplane';
import { McpCluster } from './mcp-cluster';

describe('McpCluster', () => {
  const started: McpCluster[] = [];
  async function replica(name: string, backplane: MapBackplane, namespace = 'desk') {
    const cluster = new McpCluster({ backplane, replica: name, namespace });
    await cluster.onModuleInit();
    started.push(cluster);
    return cluster;
  }
  afterEach(async () => {
    for (const cluster of started.splice(0)) await cluster.onApplicationShutdown();
  });

  it("hands each replica the messages of its own host, saying who sent them, and keeps other hosts' apart", async () => {
    const backplane = new MapBackplane();
    const r1 = await replica('r1', backplane);
    const r2 = await replica('r2', backplane);
    const other = await replica('x1', backplane, 'billing');
    const heard: unknown[] = [];
    r2.on('hello', (message) => heard.push(message));
    other.on('hello', (message) => heard.push(message));
    await r1.broadcast({ type: 'hello', n: 1 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toEqual([{ type: 'hello', n: 1, ns: 'desk', from: 'r1' }]);
    expect(r1.key('session', 's1')).toBe('mcp:desk:session:s1');
  });

  it('tells a replica that stopped saying it is alive from one that did, unless the store lost every word', async () => {
    const backplane = new MapBackplane();
    const r1 = await replica('r1', backplane);
    await replica('r2', backplane);
    expect(await r1.isAlive('r2')).toBe(true);
    expect(await r1.isAlive('gone')).toBe(false);
    // A Redis restarted without its data: nobody's word is there; nobody is judged gone.
    await backplane.delete(r1.key('replica', 'r1'));
    await backplane.delete(r1.key('replica', 'r2'));
    expect(await r1.isAlive('r2')).toBe(true);
    // ...and this replica said it is alive again at once.
    expect(await r1.isAlive('gone')).toBe(false);
  });

  it('refuses to start when the backplane cannot be reached, saying what to check', async () => {
    const backplane = new MapBackplane();
    backplane.down = true;
    const cluster = new McpCluster({ backplane, replica: 'r1', namespace: 'desk' });
    await expect(cluster.onModuleInit()).rejects.toThrow(/Cannot reach the cluster backplane: .*Check REDIS_URL/);
  });
});
