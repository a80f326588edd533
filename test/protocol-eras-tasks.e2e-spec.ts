import { z } from 'zod';
import { connectSdkV1, connectSdkV2, MODERN } from './support/era-clients';
import { reportAsTask, startDeskHost, type DeskHost } from './support/desk-host';
import { waitForAsync } from './support/wait-for';
import { WireTap } from './support/wire-tap';

const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const REPORT = /^Report of \d+ ticket\(s\) with status closed: \d+ closed\.$/;

/** `tasks/get` of the tasks extension: the task, and once it completed, the call's result inlined. */
const DetailedTask = z.looseObject({
  taskId: z.string(),
  status: z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']),
  result: z
    .looseObject({ content: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })) })
    .optional(),
});

/**
 * The desk's report (`export_ticket_report`, `task: 'optional'`) run as a task, in each era:
 * a 2025-11-25 client asks for one with `params.task` and fetches the result with
 * `tasks/result`; under 2026-07-28 tasks are an extension the client declares in its
 * capabilities, the host decides to answer with a task, and the client polls `tasks/get` until
 * the result is inlined.
 */
describe('a long call run as a task, in each era (one host)', () => {
  let host: DeskHost;
  beforeAll(async () => {
    host = await startDeskHost();
  });
  afterAll(() => host.close());

  it('SDK v1 Client (2025-11-25): created with params.task, its result fetched with tasks/result', async () => {
    const { client } = await connectSdkV1(host.url, 'tasks-2025');
    try {
      const { created, result } = await reportAsTask(client);
      expect(created.task.status).toBe('working');
      expect((result.content[0] as { text: string }).text).toMatch(REPORT);
    } finally {
      await client.close();
    }
  });

  it(`SDK v2 Client pinned to ${MODERN}, tasks extension declared: answered with a task, polled with tasks/get`, async () => {
    const { client, tap } = await connectSdkV2(host.url, 'tasks-2026', { pin: MODERN }, { tasksExtension: true });
    try {
      expect(client.getServerCapabilities()).toMatchObject({ extensions: { [TASKS_EXTENSION]: {} } });
      // SDK 2.4.0 has no task support of its own: it refuses the `task` result it cannot read,
      // so the task handle is taken from the wire and polled through the client's request().
      const refused: unknown = await client
        .callTool({ name: 'export_ticket_report', arguments: { status: 'closed' } })
        .then(
          (result) => result,
          (error: unknown) => error,
        );
      const [call] = tap.requests('tools/call', 'export_ticket_report');
      const created = (await WireTap.answer(call))?.result;
      expect({ created, refused }).toMatchObject({
        created: {
          resultType: 'task',
          taskId: expect.any(String),
          status: 'working',
          createdAt: expect.any(String),
          lastUpdatedAt: expect.any(String),
          ttlMs: expect.any(Number),
        },
      });
      expect(created).not.toHaveProperty('task');
      const taskId = created!.taskId as string;
      let task: z.infer<typeof DetailedTask> | undefined;
      await waitForAsync(async () => {
        task = await client.request({ method: 'tasks/get', params: { taskId } }, DetailedTask);
        return task.status !== 'working';
      }, 10_000);
      // The call's own result, inlined: the report's text and its CSV as an embedded resource.
      expect(task).toMatchObject({
        taskId,
        status: 'completed',
        result: { content: [{ type: 'text' }, { type: 'resource' }] },
      });
      expect(task!.result!.content[0].text).toMatch(REPORT);
      // Routers find the task's owner by its id: tasks/get names it in Mcp-Name.
      expect(tap.requests('tasks/get')[0].headers['mcp-name']).toBe(taskId);
    } finally {
      await client.close();
    }
  });

  it(`SDK v2 Client pinned to ${MODERN} without the extension: the same call answers in place`, async () => {
    const { client, tap } = await connectSdkV2(host.url, 'no-tasks-2026', { pin: MODERN });
    try {
      const result = await client.callTool({ name: 'export_ticket_report', arguments: { status: 'closed' } });
      expect((result.content[0] as { text: string }).text).toMatch(REPORT);
      const answer = await WireTap.answer(tap.requests('tools/call', 'export_ticket_report')[0]);
      expect(answer?.result).toMatchObject({ resultType: 'complete' });
    } finally {
      await client.close();
    }
  });
});
