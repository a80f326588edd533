import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectSdkV1, connectSdkV2, MODERN } from './support/era-clients';
import { readAuditTrail } from './support/desk-host';
import { startDeskProcess, type DeskProcess } from './support/desk-process';
import { startHaproxy, type Haproxy } from './support/haproxy';
import { startRedisServer, type RedisServer } from './support/redis-server';
import { waitForAsync } from './support/wait-for';

// Three host processes, Redis and HAProxy start here, and each replica is restarted in turn.
jest.setTimeout(120_000);

const run = promisify(execFile);
const VERIFY = join(__dirname, '..', 'dist', 'apps', 'audit-verify', 'src', 'main.js');
const REPLICAS = ['roll-1', 'roll-2', 'roll-3'] as const;

/** What one client of the load did: calls answered with their results, calls answered "cancelled", and anything else. */
interface Load {
  client: string;
  answered: number;
  cancelled: number;
  failures: string[];
}

/** The answer of a call the host cancelled at its drain's end. */
const CANCELLED =
  'Call to tool "export_ticket_report" was cancelled: the host is shutting down and the call did not finish in time. It may have done part of its work; check before you retry it.';

/**
 * A rolling update of three replicas behind round-robin HAProxy, under load: each replica gets
 * SIGTERM in turn (the drain answers and records its calls in flight, the balancer sends what
 * reaches it meanwhile to the others) and starts again. Every call of every client is answered,
 * and each answered call has exactly one record in the trails of the replicas.
 */
describe('a rolling restart of three replicas under load', () => {
  const auditDir = mkdtempSync(join(tmpdir(), 'rolling-'));
  const auditFile = (replica: string) => join(auditDir, `${replica}.jsonl`);
  const replicas = new Map<string, DeskProcess>();
  const env = (replica: string, redis: RedisServer) => ({
    REDIS_URL: redis.url,
    MCP_REPLICA: replica,
    MCP_REQUEST_STATE_SECRET: secret,
    AUDIT_FILE: auditFile(replica),
    AUDIT_CHAIN: replica,
    // Five steps of 300 ms against a drain of 600 ms: a report in flight when its replica is told
    // to stop is cancelled, and answered so; a search always ends inside the drain.
    SUPPORT_REPORT_STEP_MS: '300',
    MCP_SHUTDOWN_TIMEOUT_MS: '600',
    THROTTLE_LIMIT: '100000',
  });
  const secret = randomBytes(32).toString('base64');
  let redis: RedisServer;
  let proxy: Haproxy;

  beforeAll(async () => {
    redis = await startRedisServer({ persistent: true });
    for (const replica of REPLICAS) replicas.set(replica, await startDeskProcess(env(replica, redis)));
    proxy = await startHaproxy(
      Object.fromEntries(REPLICAS.map((replica) => [replica, replicas.get(replica)!.port])),
      undefined,
      { healthChecks: true },
    );
  }, 120_000);

  afterAll(async () => {
    await proxy?.stop();
    for (const replica of replicas.values()) await replica.stop();
    await redis?.stop();
    rmSync(auditDir, { recursive: true, force: true });
  });

  it('loses no answer and no record', async () => {
    const url = `http://127.0.0.1:${proxy.port}/mcp`;
    const sessions = await Promise.all([1, 2, 3].map((n) => connectSdkV1(url, `roll-v1-${n}`)));
    const stateless = await Promise.all([1, 2].map((n) => connectSdkV2(url, `roll-v2-${n}`, { pin: MODERN })));
    let running = true;
    /** Per restart, the requests in flight its drain saw through (from the replica's log). */
    const drained: number[] = [];
    const loads: Load[] = [];
    /** Calls `call` until told to stop, counting answers; a long report every fourth call. */
    const loop = async (client: string, call: (name: string, args: Record<string, unknown>) => Promise<unknown>) => {
      const load: Load = { client, answered: 0, cancelled: 0, failures: [] };
      loads.push(load);
      for (let i = 0; running; i++) {
        const long = i % 4 === 3;
        try {
          const result = (await call(
            long ? 'export_ticket_report' : 'search_customers',
            long ? {} : { query: 'contoso' },
          )) as CallToolResult;
          const text = (result.content[0] as { text?: string } | undefined)?.text;
          if (!result.isError) load.answered++;
          else if (text === CANCELLED) load.cancelled++;
          else load.failures.push(JSON.stringify(result.content));
        } catch (error) {
          load.failures.push((error as Error).message);
        }
      }
    };
    const loops = [
      // The first session follows its reports' progress: their answers come on SSE streams.
      ...sessions.map(({ client }, n) =>
        loop(`roll-v1-${n + 1}`, (name, args) =>
          client.callTool({ name, arguments: args }, undefined, {
            timeout: 30_000,
            ...(n === 0 && { onprogress: () => undefined }),
          }),
        ),
      ),
      ...stateless.map(({ client }, n) =>
        loop(`roll-v2-${n + 1}`, (name, args) => client.callTool({ name, arguments: args }, { timeout: 30_000 })),
      ),
    ];
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      for (const replica of REPLICAS) {
        const port = replicas.get(replica)!.port;
        const stopping = replicas.get(replica)!;
        await stopping.stop(); // SIGTERM: drains, then exits
        drained.push(Number(/Drained (\d+) request/.exec(stopping.output())?.[1] ?? 0));
        replicas.set(replica, await startDeskProcess(env(replica, redis), { port }));
        // Back in the balancer's rotation before the next one goes.
        await waitForAsync(async () => (await fetch(`http://127.0.0.1:${port}/health/ready`)).status === 200);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    } finally {
      running = false;
      await Promise.all(loops);
      await Promise.allSettled([...sessions, ...stateless].map(({ client }) => client.close()));
    }
    for (const replica of REPLICAS) await replicas.get(replica)!.stop();

    // Every call answered, through three restarts.
    expect(loads.map(({ client, failures }) => ({ client, failures }))).toEqual(
      loads.map(({ client }) => ({ client, failures: [] })),
    );
    expect(loads.every((load) => load.answered > 0)).toBe(true);
    // The restarts caught calls in flight: some ended inside the drain, some were cancelled.
    expect(drained.reduce((sum, count) => sum + count, 0)).toBeGreaterThan(0);
    expect(loads.reduce((sum, load) => sum + load.cancelled, 0)).toBeGreaterThan(0);
    // Each answered call recorded once, on whichever replica served it, with the outcome it was told.
    const records = (await Promise.all(REPLICAS.map((replica) => readAuditTrail(auditFile(replica))))).flat();
    const recorded = (client: string, outcome: string) =>
      records.filter(
        (record) => record.method === 'tools/call' && record.client?.name === client && record.outcome === outcome,
      ).length;
    expect(
      loads.map(({ client }) => ({ client, ok: recorded(client, 'ok'), cancelled: recorded(client, 'cancelled') })),
    ).toEqual(loads.map(({ client, answered, cancelled }) => ({ client, ok: answered, cancelled })));
    for (const replica of REPLICAS) await run(process.execPath, [VERIFY, auditFile(replica)]);
  });
});
