import type { INestApplication } from '@nestjs/common';
import { LEDGER_GATE, TaskExtensionFixtureModule } from './fixtures/task-extension.fixtures';
import { startFixtureApp } from './support/fixture-app';
import { SseReader } from './support/sse-reader';
import { post2026, rpc2026 } from './support/stateless-request';
import { waitForAsync } from './support/wait-for';

const TASKS = 'io.modelcontextprotocol/tasks';
const DECLARING = { elicitation: {}, extensions: { [TASKS]: {} } };
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/**
 * `notifications/tasks` on a `subscriptions/listen` stream (tasks extension, 2026-07-28): a client
 * follows the task its call became, and hears each status change without polling `tasks/get`.
 */
describe('task status notifications on subscriptions/listen', () => {
  let app: INestApplication;
  let url: string;

  beforeAll(async () => {
    ({ app, url } = await startFixtureApp({}, (options) => TaskExtensionFixtureModule.register(options)));
  });
  afterAll(() => app.close());

  const call = (method: string, params: Record<string, unknown>) => rpc2026(url, method, params, {}, DECLARING);

  it('follows a task the caller owns: acknowledged, then every status change, tagged, with the result inlined at the end', async () => {
    const created = await call('tools/call', { name: 'exportLedger', arguments: { year: 2024 } });
    const taskId = created.body.result!.taskId as string;
    let key = '';
    await waitForAsync(async () => {
      const task = (await call('tasks/get', { taskId })).body.result!;
      key = Object.keys((task.inputRequests ?? {}) as object)[0] ?? '';
      return task.status === 'input_required';
    });

    const listen = await post2026(
      url,
      'subscriptions/listen',
      { notifications: { taskIds: [taskId, 'someone-elses-task'] } },
      {},
      { id: 'tasks', capabilities: DECLARING },
    );
    const stream = new SseReader(listen);
    try {
      expect(await stream.next()).toMatchObject({
        method: 'notifications/subscriptions/acknowledged',
        params: { notifications: { taskIds: [taskId] }, _meta: { [SUBSCRIPTION_ID]: 'tasks' } },
      });
      await call('tasks/update', {
        taskId,
        inputResponses: { [key]: { action: 'accept', content: { format: 'csv' } } },
      });
      expect(await stream.next()).toMatchObject({
        method: 'notifications/tasks',
        params: { taskId, status: 'working', _meta: { [SUBSCRIPTION_ID]: 'tasks' } },
      });
      LEDGER_GATE.release();
      expect(await stream.next()).toMatchObject({
        method: 'notifications/tasks',
        params: {
          taskId,
          status: 'completed',
          result: { content: [{ type: 'text', text: 'Ledger 2024 exported as csv for anonymous' }] },
          _meta: { [SUBSCRIPTION_ID]: 'tasks' },
        },
      });
    } finally {
      await stream.cancel();
    }
  });

  it('refuses task notifications to a client that did not declare the extension (-32021)', async () => {
    const response = await post2026(url, 'subscriptions/listen', { notifications: { taskIds: ['any'] } }, {});
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: -32021 } });
  });
});
