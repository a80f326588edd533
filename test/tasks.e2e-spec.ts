import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
  ListTasksResultSchema,
  CancelTaskResultSchema,
  TaskStatusNotificationSchema,
  RELATED_TASK_META_KEY,
} from '@modelcontextprotocol/sdk/types.js';
import { connect, type Connected, type TransportName } from './support/connect';
import { waitFor } from './support/wait-for';

describe.each<TransportName>(['http', 'stdio'])('tools as tasks over %s', (transport) => {
  let connected: Connected;
  const statuses: string[] = [];

  beforeAll(async () => {
    connected = await connect(transport);
    connected.client.setNotificationHandler(
      TaskStatusNotificationSchema,
      (n) => void statuses.push(`${n.params.taskId}:${n.params.status}`),
    );
    if (transport === 'http') await new Promise((resolve) => setTimeout(resolve, 200)); // GET stream opening
  });
  afterAll(() => connected.close());

  const request = <T>(
    method: string,
    params: Record<string, unknown>,
    schema: Parameters<Connected['client']['request']>[1],
  ) => connected.client.request({ method, params } as never, schema) as Promise<T>;

  it('advertises task support on the tool', async () => {
    const tools: { name: string; execution?: unknown }[] = [];
    let cursor: string | undefined;
    do {
      const page = await connected.client.listTools(cursor ? { cursor } : {});
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    expect(tools.find((tool) => tool.name === 'countSlowly')!.execution).toEqual({ taskSupport: 'optional' });
  });

  it('runs a call as a task: created at once, then status, list and result', async () => {
    const created = await request<{ task: { taskId: string; status: string; ttl: number } }>(
      'tools/call',
      { name: 'countSlowly', arguments: { to: 10 }, task: { ttl: 60_000 } },
      CreateTaskResultSchema,
    );
    expect(created.task).toMatchObject({ status: 'working', ttl: 60_000, pollInterval: 500 });
    const { taskId } = created.task;
    expect(await request('tasks/get', { taskId }, GetTaskResultSchema)).toMatchObject({ taskId, status: 'working' });
    const listed = await request<{ tasks: { taskId: string }[] }>('tasks/list', {}, ListTasksResultSchema);
    expect(listed.tasks.map((task) => task.taskId)).toContain(taskId);

    const result = await request<{ structuredContent: unknown; _meta: Record<string, unknown> }>(
      'tasks/result',
      { taskId },
      CallToolResultSchema,
    );
    expect(result.structuredContent).toEqual({ counted: 10 });
    expect(result._meta[RELATED_TASK_META_KEY]).toEqual({ taskId });
    expect(await request('tasks/get', { taskId }, GetTaskResultSchema)).toMatchObject({ status: 'completed' });
    await waitFor(() => statuses.includes(`${taskId}:completed`));
  });

  it('cancels a running task', async () => {
    const { task } = await request<{ task: { taskId: string } }>(
      'tools/call',
      { name: 'countSlowly', arguments: { to: 50 }, task: {} },
      CreateTaskResultSchema,
    );
    const cancelled = await request('tasks/cancel', { taskId: task.taskId }, CancelTaskResultSchema);
    expect(cancelled).toMatchObject({ taskId: task.taskId, status: 'cancelled' });
    await expect(request('tasks/cancel', { taskId: task.taskId }, CancelTaskResultSchema)).rejects.toMatchObject({
      code: -32602,
    });
    await expect(request('tasks/result', { taskId: task.taskId }, CallToolResultSchema)).rejects.toMatchObject({
      code: -32602,
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await request('tasks/get', { taskId: task.taskId }, GetTaskResultSchema)).toMatchObject({
      status: 'cancelled',
    });
  });

  it('refuses unknown tasks and tools that cannot run as tasks', async () => {
    await expect(request('tasks/get', { taskId: 'nope' }, GetTaskResultSchema)).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown task: nope'),
    });
    await expect(
      request('tools/call', { name: 'add', arguments: { a: 1, b: 2 }, task: {} }, CreateTaskResultSchema),
    ).rejects.toMatchObject({ code: -32601 });
  });
});
