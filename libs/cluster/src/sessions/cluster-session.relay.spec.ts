import { LocalSessionRelay, McpSession, type ProtocolOptions } from '#libs/protocol';
import { McpCluster } from '../replicas/mcp-cluster';
import { MapBackplane } from '../testing/map-backplane';
import { ClusterSessionRelay } from './cluster-session.relay';
import { ClusterSessionStore } from './cluster-session.store';

const options = {
  sessions: { idleTtlMs: 60_000, max: 100, maxPerPrincipal: 10, maxSubscriptions: 10 },
} as ProtocolOptions;

describe('LocalSessionRelay', () => {
  it("sends on the session's own stream, and has no other replica to pass anything to", () => {
    const relay = new LocalSessionRelay();
    const session = new McpSession('s1', '2025-11-25');
    expect(relay.toSession(session, 'hello')).toBe(false);
    const heard: string[] = [];
    session.addSink((message) => heard.push(message));
    expect(relay.toSession(session, 'hello')).toBe(true);
    expect(heard).toEqual(['hello']);
    expect(relay.forwardResponse(session, 'srv-1', {}, undefined)).toBe(false);
    expect(relay.forwardCancel(session, 1, 'stop')).toBe(false);
  });
});

describe('ClusterSessionRelay', () => {
  const clusters: McpCluster[] = [];
  async function replica(name: string, backplane: MapBackplane) {
    const cluster = new McpCluster({ backplane, replica: name, namespace: 'desk' });
    await cluster.onModuleInit();
    clusters.push(cluster);
    const sessions = new ClusterSessionStore(options, cluster);
    return { sessions, relay: new ClusterSessionRelay(sessions, cluster) };
  }
  afterEach(async () => {
    for (const cluster of clusters.splice(0)) await cluster.onApplicationShutdown();
  });

  it("passes the client's answer to the replica whose call asked, and a message to the replica holding the stream", async () => {
    const backplane = new MapBackplane();
    const [r1, r2] = [await replica('r1', backplane), await replica('r2', backplane)];
    const opened = r1.sessions.create('alice');
    await r1.sessions.commit(opened);
    const copy = (await r2.sessions.resolve(opened.id!))!;

    let asked = '';
    const answer = opened.clientRequests.send(
      'roots/list',
      {},
      (message) => ((asked = (JSON.parse(message) as { id: string }).id), true),
      5_000,
      new AbortController().signal,
    );
    // The answer reaches r2, which did not ask: it passes it on.
    expect(copy.clientRequests.settle(asked, { roots: [] }, undefined)).toBe(false);
    expect(r2.relay.forwardResponse(copy, asked, { roots: [] }, undefined)).toBe(true);
    await expect(answer).resolves.toEqual({ roots: [] });

    const heard: string[] = [];
    opened.addSink((message) => heard.push(message));
    expect(r2.relay.toSession(copy, 'on r1')).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toEqual(['on r1']);
    // A session without an id (stateless) has no other replica.
    expect(r2.relay.forwardCancel(new McpSession(undefined, '2026-07-28'), 1, 'stop')).toBe(false);
  });
});
