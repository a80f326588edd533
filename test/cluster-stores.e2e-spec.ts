import type { INestApplication } from '@nestjs/common';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CallToolResultSchema,
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
  ListTasksResultSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { RedisClusterBackplane } from 'nest-mcp-host/redis';
import type { McpClusterBackplane } from '#libs/cluster';
import { McpCatalog } from '#libs/catalog';
import type { McpModuleOptions } from '#libs/hosting';
import { hashApiKey } from '#libs/security';
import { ClusterFixtureModule, ReplicaLog } from './fixtures/cluster.fixtures';
import { connectHttpClient, startFixtureApp } from './support/fixture-app';
import { startRedisServer, type RedisServer } from './support/redis-server';
import { rpc2026 } from './support/stateless-request';
import { waitFor, waitForAsync } from './support/wait-for';

const KEYS = { agent: 'agent-key-0123456789', ops: 'ops-approver-key-0123' };
const AUTH = {
  mode: 'apiKey' as const,
  keys: [
    { hash: hashApiKey(KEYS.agent), principal: 'agent' },
    { hash: hashApiKey(KEYS.ops), principal: 'ops', roles: ['approver'] },
  ],
};
const TASKS_EXTENSION = { elicitation: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } };

/** One replica: its own app and its own connection to Redis, as a separate process would have. */
interface Replica {
  app: INestApplication;
  /** The MCP endpoint. */
  url: string;
  /** Where the admin API is (`<base>/admin/api/…`). */
  base: string;
  log: ReplicaLog;
  /** Cuts the replica off the backplane, as if its process died: every call of it fails from then on. */
  sever: () => void;
}

/** A backplane that can be cut off; until then it is the real one. */
function severable(backplane: McpClusterBackplane): { backplane: McpClusterBackplane; sever: () => void } {
  let severed = false;
  const cut = new Proxy(backplane, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        severed && property !== 'close'
          ? Promise.reject(new Error('this replica is gone'))
          : (value as (...args: unknown[]) => unknown).apply(target, args);
    },
  });
  return { backplane: cut, sever: () => (severed = true) };
}

async function startReplica(redis: RedisServer, replica: string, options: Partial<McpModuleOptions>): Promise<Replica> {
  const { backplane, sever } = severable(new RedisClusterBackplane(redis.url));
  const { app, url } = await startFixtureApp(
    { replica, cluster: { backplane }, auth: AUTH, shutdownTimeoutMs: 200, ...options },
    (host) => ClusterFixtureModule.register(host),
  );
  return { app, url, base: url.replace(/\/mcp$/, ''), log: app.get(ReplicaLog), sever };
}

async function stopReplicas(replicas: (Replica | undefined)[]): Promise<void> {
  for (const replica of replicas) {
    if (!replica) continue;
    for (const job of replica.log.started) replica.log.released.add(job);
    await replica.app.close();
  }
}

const request = <T>(client: Client, method: string, params: Record<string, unknown>, schema: unknown) =>
  client.request({ method, params } as never, schema as never) as Promise<T>;

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

/**
 * Two replicas of one host (two apps in this process, each with its own connection to a real
 * redis-server), sharing tasks and approval requests through the cluster backplane. HTTP is
 * stateless, so that a client may reach either replica with any request.
 */
describe('tasks and approvals shared by two replicas', () => {
  let redis: RedisServer;
  let r1: Replica;
  let r2: Replica;
  let agentOn1: Client;
  let agentOn2: Client;

  beforeAll(async () => {
    redis = await startRedisServer();
    const options = { name: 'cluster-shared', mode: 'stateless' as const };
    r1 = await startReplica(redis, 'r1', options);
    r2 = await startReplica(redis, 'r2', options);
    agentOn1 = await connectHttpClient(r1.url, { 'x-api-key': KEYS.agent });
    agentOn2 = await connectHttpClient(r2.url, { 'x-api-key': KEYS.agent });
  });
  afterAll(async () => {
    await agentOn1?.close();
    await agentOn2?.close();
    await stopReplicas([r1, r2]);
    await redis?.stop();
  });

  /** Starts `runJob` as a task on r1 and waits until its call runs there. */
  async function jobOnR1(job: string): Promise<string> {
    const { task } = await request<{ task: { taskId: string } }>(
      agentOn1,
      'tools/call',
      { name: 'runJob', arguments: { job }, task: { ttl: 60_000 } },
      CreateTaskResultSchema,
    );
    await waitFor(() => r1.log.started.includes(job));
    return task.taskId;
  }

  describe('tasks', () => {
    it('reads, lists and awaits on r2 the result of a task r1 runs', async () => {
      const taskId = await jobOnR1('report');
      expect(await request(agentOn2, 'tasks/get', { taskId }, GetTaskResultSchema)).toMatchObject({
        taskId,
        status: 'working',
      });
      const listed = await request<{ tasks: { taskId: string }[] }>(agentOn2, 'tasks/list', {}, ListTasksResultSchema);
      expect(listed.tasks.map((task) => task.taskId)).toContain(taskId);
      const result = request<CallToolResult>(agentOn2, 'tasks/result', { taskId }, CallToolResultSchema);
      r1.log.released.add('report');
      expect((await result).structuredContent).toEqual({ job: 'report', done: true });
      expect(await request(agentOn2, 'tasks/get', { taskId }, GetTaskResultSchema)).toMatchObject({
        status: 'completed',
      });
      expect(r2.log.started).toEqual([]);
    });

    it('cancels on r2 a task r1 runs: r1 aborts its call, and the task stays cancelled', async () => {
      const taskId = await jobOnR1('import');
      expect(await request(agentOn2, 'tasks/cancel', { taskId }, CancelTaskResultSchema)).toMatchObject({
        taskId,
        status: 'cancelled',
      });
      await waitFor(() => r1.log.aborted.includes('import'));
      await new Promise((resolve) => setTimeout(resolve, 100)); // the aborted call's own end is recorded on r1
      expect(await request(agentOn1, 'tasks/get', { taskId }, GetTaskResultSchema)).toMatchObject({
        status: 'cancelled',
        statusMessage: 'Cancelled by the client',
      });
      await expect(request(agentOn2, 'tasks/cancel', { taskId }, CancelTaskResultSchema)).rejects.toMatchObject({
        code: -32602,
      });
    });

    it('takes on r2 the answer to what a task of r1 asks (tasks extension, 2026-07-28)', async () => {
      const headers = { 'x-api-key': KEYS.agent };
      const created = await rpc2026(
        r1.url,
        'tools/call',
        { name: 'exportReport', arguments: { report: 'q3' } },
        headers,
        TASKS_EXTENSION,
      );
      const taskId = created.body.result!.taskId as string;
      expect(created.body.result).toMatchObject({ resultType: 'task', status: 'working' });
      const onR2 = () => rpc2026(r2.url, 'tasks/get', { taskId }, headers, TASKS_EXTENSION);
      let waiting: Record<string, unknown> = {};
      await waitForAsync(async () => {
        waiting = (await onR2()).body.result ?? {};
        return waiting.status === 'input_required';
      });
      const [key] = Object.keys(waiting.inputRequests as object);
      const update = await rpc2026(
        r2.url,
        'tasks/update',
        { taskId, inputResponses: { [key]: { action: 'accept', content: { format: 'csv' } } } },
        headers,
        TASKS_EXTENSION,
      );
      expect(update.status).toBe(200);
      await waitForAsync(async () => (await onR2()).body.result?.status === 'completed');
      expect((await onR2()).body.result).toMatchObject({
        status: 'completed',
        result: { content: [{ type: 'text', text: 'q3 exported as csv' }] },
      });
    });
  });

  describe('approval requests', () => {
    /** A call of `wipeArchive` by the agent, in a client of its own (no elicitation: it waits for an approver). */
    async function wipe(replica: Replica, archive: string): Promise<CallToolResult> {
      const client = await connectHttpClient(replica.url, { 'x-api-key': KEYS.agent });
      try {
        return (await client.callTool({ name: 'wipeArchive', arguments: { archive } })) as CallToolResult;
      } finally {
        await client.close();
      }
    }
    const api = (replica: Replica, path: string, body?: unknown) =>
      fetch(`${replica.base}/admin/api/approvals${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { 'x-api-key': KEYS.ops, ...(body !== undefined && { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const pendingFor = async (replica: Replica, archive: string) =>
      (
        (await (await api(replica, '?status=pending')).json()) as {
          approvals: { id: string; arguments: { archive: string } }[];
        }
      ).approvals.find((approval) => approval.arguments.archive === archive);

    it('decides on r2 a request opened on r1; of two retries at once, on r1 and r2, exactly one runs', async () => {
      for (const archive of ['a-1', 'a-2', 'a-3']) {
        const first = await wipe(r1, archive);
        expect(first.isError).toBe(true);
        expect(textOf(first)).toMatch(/needs a person's approval before it runs/);
        const request = (await pendingFor(r2, archive))!;
        expect(request).toBeDefined();
        const approved = await api(r2, `/${request.id}/approve`, { reason: 'a copy exists' });
        expect(approved.status).toBe(200);
        expect((await api(r1, `/${request.id}/deny`, {})).status).toBe(409); // decided once, on any replica

        const retries = await Promise.all([wipe(r1, archive), wipe(r2, archive)]);
        const ran = retries.filter((result) => !result.isError);
        expect(ran).toEqual([{ content: [{ type: 'text', text: `wiped ${archive}` }] }]);
        const refused = retries.find((result) => result.isError)!;
        expect(textOf(refused)).toMatch(/needs a person's approval before it runs/);
        expect([...r1.log.wiped, ...r2.log.wiped].filter((name) => name === archive)).toEqual([archive]);
        const used = (await (await api(r1, `/${request.id}`)).json()) as { approval: { status: string } };
        expect(used.approval.status).toBe('used');
      }
    });

    it('tells the model on r1 who denied its call on r2', async () => {
      await wipe(r1, 'keep');
      const request = (await pendingFor(r1, 'keep'))!;
      expect((await api(r2, `/${request.id}/deny`, { reason: 'the only copy' })).status).toBe(200);
      expect(textOf(await wipe(r1, 'keep'))).toBe(
        '"wipeArchive" was denied by ops: the only copy. It was not run; do not retry unless the user asks for it.',
      );
    });
  });

  // Last: r1 is cut off for good.
  describe('a replica that stops', () => {
    it('leaves its running tasks failed, as every other replica reads them', async () => {
      const taskId = await jobOnR1('orphan');
      r1.sever();
      // Its heartbeat would expire within 15 s; the test does not wait for that.
      const probe = new RedisClusterBackplane(redis.url);
      await probe.subscribe(() => undefined);
      // The word r1 keeps saying it is alive (McpCluster.isAlive), under the host's name.
      await probe.delete('mcp:cluster-shared:replica:r1');
      await probe.close();

      const stopped = 'The replica running it (r1) stopped before the task ended; start the call again.';
      expect(await request(agentOn2, 'tasks/get', { taskId }, GetTaskResultSchema)).toMatchObject({
        taskId,
        status: 'failed',
        statusMessage: stopped,
      });
      await expect(request(agentOn2, 'tasks/result', { taskId }, CallToolResultSchema)).rejects.toMatchObject({
        message: expect.stringContaining(stopped),
      });
      const listed = await request<{ tasks: { taskId: string; status: string }[] }>(
        agentOn2,
        'tasks/list',
        {},
        ListTasksResultSchema,
      );
      expect(listed.tasks.find((task) => task.taskId === taskId)?.status).toBe('failed');
    });
  });
});

/**
 * Entries enabled and disabled at run time on one replica, on every replica: each tells its own
 * clients (stateful sessions, each on its replica) that its list changed.
 */
describe('catalog toggles shared by the replicas', () => {
  let redis: RedisServer;
  const replicas: Replica[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await stopReplicas(replicas);
    await redis?.stop();
  });

  async function replicaWithClient(name: string): Promise<{ replica: Replica; client: Client; changes: string[] }> {
    const replica = await startReplica(redis, name, { name: 'cluster-catalog' });
    replicas.push(replica);
    const client = await connectHttpClient(replica.url, { 'x-api-key': KEYS.agent });
    clients.push(client);
    const changes: string[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes.push('tools'));
    await new Promise((resolve) => setTimeout(resolve, 200)); // the GET stream opening
    return { replica, client, changes };
  }
  const toolNames = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();

  it('hides on r2 what r1 disabled, tells r2 clients, hides it on a replica started later, and serves it again', async () => {
    const one = await replicaWithClient('r1');
    const two = await replicaWithClient('r2');
    expect(await toolNames(two.client)).toContain('ping');

    expect(one.replica.app.get(McpCatalog).disable('tool', 'ping')).toBe(true);
    await waitFor(() => two.changes.length > 0);
    expect(await toolNames(two.client)).not.toContain('ping');
    await expect(two.client.callTool({ name: 'ping', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    expect(one.changes).toHaveLength(1); // its own change, once: its message back changes nothing

    const three = await replicaWithClient('r3');
    expect(await toolNames(three.client)).toEqual(['exportReport', 'runJob', 'wipeArchive']);

    expect(two.replica.app.get(McpCatalog).enable('tool', 'ping')).toBe(true);
    await waitFor(() => one.changes.length === 2 && three.changes.length === 1);
    for (const { client } of [one, two, three]) expect(await toolNames(client)).toContain('ping');
    expect(await two.client.callTool({ name: 'ping', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'pong' }],
    });
  });
});
