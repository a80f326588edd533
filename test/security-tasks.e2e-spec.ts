import type { INestApplication } from '@nestjs/common';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CallToolResultSchema,
  CancelTaskResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
  ListTasksResultSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { REACHED, SecurityFixtureModule } from './fixtures/security.fixtures';
import { connectHttpClient, startFixtureApp } from './support/fixture-app';
import { credentialRefusals, startIssuer, type TestIssuer } from './support/issuer';
import { waitFor } from './support/wait-for';

type TaskMethod = 'tasks/get' | 'tasks/result' | 'tasks/cancel' | 'tasks/list';
const TASK_METHODS: TaskMethod[] = ['tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/list'];
const SCHEMAS = {
  'tasks/get': GetTaskResultSchema,
  'tasks/result': CallToolResultSchema,
  'tasks/cancel': CancelTaskResultSchema,
  'tasks/list': ListTasksResultSchema,
};

const call = <T>(client: Client, method: TaskMethod | 'tools/call', params: Record<string, unknown>) =>
  client.request(
    { method, params } as never,
    method === 'tools/call' ? CreateTaskResultSchema : SCHEMAS[method],
  ) as Promise<T>;

/**
 * The security matrix for every `tasks/*` method: a task belongs to the principal that created
 * it (and, with sessions, to its session). Other callers, whatever their scopes, get exactly the
 * answer for a task that does not exist, and reach no code.
 */
describe.each(['stateless', 'stateful'] as const)(
  'tasks/* security matrix over Streamable HTTP (OAuth, %s)',
  (mode) => {
    let app: INestApplication;
    let url: string;
    let issuer: TestIssuer;

    beforeAll(async () => {
      issuer = await startIssuer();
      ({ app, url } = await startFixtureApp(
        {
          mode,
          authFailureLimit: { limit: 1_000, windowMs: 60_000 },
          auth: issuer.hostAuth(),
        },
        (options) => SecurityFixtureModule.register(options),
      ));
    });

    afterAll(async () => {
      await app.close();
      await issuer.close();
    });

    const clientOf = async (sub: string, scope = 'mcp tickets:read reports') =>
      connectHttpClient(url, { authorization: `Bearer ${await issuer.sign({ sub, scope })}` });

    /** The owner's client and a task it created (still running when `ms` is long). */
    async function ownersTask(owner: Client, ms: number): Promise<string> {
      const before = REACHED.length;
      const { task } = await call<{ task: { taskId: string } }>(owner, 'tools/call', {
        name: 'buildReport',
        arguments: { ms },
        task: {},
      });
      await waitFor(() => REACHED.length > before);
      return task.taskId;
    }

    const refusals = credentialRefusals(() => issuer, 'reports');

    describe.each(TASK_METHODS)('%s', (method) => {
      it.each(refusals)('is refused with %s, before any code runs', async (_label, token, status, message) => {
        const owner = await clientOf('owner-1');
        const taskId = await ownersTask(owner, 0);
        const reached = REACHED.length;
        const credential = await token();
        const response = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            'mcp-protocol-version': '2025-11-25',
            ...(credential && { authorization: `Bearer ${credential}` }),
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: method === 'tasks/list' ? {} : { taskId } }),
        });
        expect(response.status).toBe(status);
        expect(((await response.json()) as { error: { message: string } }).error.message).toContain(message);
        expect(REACHED.length).toBe(reached);
        await owner.close();
      });

      it('is answered like an unknown task for another principal, even one with every scope, and reaches no code', async () => {
        const owner = await clientOf('owner-1');
        // A running task (for cancel) or a finished one (for result).
        const taskId = await ownersTask(owner, method === 'tasks/cancel' ? 5_000 : 0);
        if (method === 'tasks/result') await call(owner, 'tasks/result', { taskId });
        const reached = REACHED.length;
        for (const intruder of [await clientOf('intruder'), await clientOf('reader', 'mcp tickets:read')]) {
          if (method === 'tasks/list') {
            expect((await call<{ tasks: { taskId: string }[] }>(intruder, 'tasks/list', {})).tasks).toEqual([]);
          } else {
            await expect(call(intruder, method, { taskId })).rejects.toMatchObject({
              code: -32602,
              message: expect.stringContaining(`Unknown task: ${taskId}`),
            });
            // Exactly the answer for a task that never existed.
            await expect(call(intruder, method, { taskId: 'no-such-task' })).rejects.toMatchObject({
              code: -32602,
              message: expect.stringContaining('Unknown task: no-such-task'),
            });
          }
          await intruder.close();
        }
        expect(REACHED.length).toBe(reached);
        // The owner's task is untouched: still running (not cancelled by the intruder), or still readable.
        expect(await call(owner, 'tasks/get', { taskId })).toMatchObject({
          taskId,
          status: method === 'tasks/cancel' ? 'working' : 'completed',
        });
        if (method === 'tasks/cancel') await call(owner, 'tasks/cancel', { taskId });
        await owner.close();
      });

      it('is served to the principal that created the task', async () => {
        const owner = await clientOf('owner-1');
        const taskId = await ownersTask(owner, method === 'tasks/cancel' ? 5_000 : 0);
        switch (method) {
          case 'tasks/get':
            expect(await call(owner, method, { taskId })).toMatchObject({ taskId });
            break;
          case 'tasks/result':
            expect(await call(owner, method, { taskId })).toMatchObject({
              content: [{ type: 'text', text: 'report for owner-1' }],
            });
            break;
          case 'tasks/cancel':
            expect(await call(owner, method, { taskId })).toMatchObject({ taskId, status: 'cancelled' });
            break;
          case 'tasks/list':
            expect(
              (await call<{ tasks: { taskId: string }[] }>(owner, method, {})).tasks.map((task) => task.taskId),
            ).toContain(taskId);
            break;
        }
        await owner.close();
      });
    });

    if (mode === 'stateful') {
      it("keeps a task to the session that created it: the same principal's other session cannot see it", async () => {
        const first = await clientOf('owner-2');
        const second = await clientOf('owner-2');
        const taskId = await ownersTask(first, 0);
        await expect(call(second, 'tasks/get', { taskId })).rejects.toMatchObject({
          code: -32602,
          message: expect.stringContaining('Unknown task'),
        });
        expect((await call<{ tasks: unknown[] }>(second, 'tasks/list', {})).tasks).toEqual([]);
        expect(await call(first, 'tasks/get', { taskId })).toMatchObject({ taskId });
        await first.close();
        await second.close();
      });
    }
  },
);
