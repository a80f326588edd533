import { LATEST_PROTOCOL_VERSION, STATELESS_PROTOCOL_VERSION } from '#libs/core';
import { callRequest, principal, RecordingReply, type RequestOrigin } from '../testing/protocol-testing';
import type { ProtocolOptions } from '../options/protocol.options';
import { RequestNote } from '../events/request-note';
import { McpSession } from '../sessions/mcp-session';
import { traitsOf } from '../wire/mcp-method.table';
import type { TaskExtensionRunner } from './task-extension.runner';
import type { TaskRunner } from './task.runner';
import { TaskMethods } from './task.methods';
import { TaskExtensionMethods } from './task-extension.methods';

const TASK = {
  taskId: 't-1',
  status: 'working',
  ttl: 1_000,
  createdAt: '2026-11-25T00:00:00.000Z',
  lastUpdatedAt: '2026-11-25T00:00:00.000Z',
  owner: { principal: 'alice', session: undefined },
  expiresAt: 0,
};

/** Each era's method group over a stand-in of its runner, recording who served what. */
function setup() {
  const served: string[] = [];
  const tasks = {
    get: async (taskId: string) => (served.push(`2025 get ${taskId}`), TASK),
    cancel: async (taskId: string) => (served.push(`2025 cancel ${taskId}`), TASK),
  } as unknown as TaskRunner;
  const extension = {
    get: async (taskId: string) => (served.push(`2026 get ${taskId}`), '{"taskId":"t-1"}'),
    update: async (taskId: string, responses: unknown) => (
      served.push(`2026 update ${taskId} ${JSON.stringify(responses)}`),
      '{}'
    ),
    cancel: async (taskId: string) => (served.push(`2026 cancel ${taskId}`), '{}'),
  } as unknown as TaskExtensionRunner;
  const session = new TaskMethods({ pageSize: 10 } as ProtocolOptions, tasks);
  const stateless = new TaskExtensionMethods(extension);
  return { session, stateless, served };
}

function scopeOf(version: string): RequestOrigin {
  return { session: new McpSession(undefined, version), transport: 'http', principal: principal('alice'), headers: {} };
}

const noteOf = (method: string) =>
  new RequestNote(method, traitsOf(method), 'http', 'alice', undefined, undefined, undefined);

describe('TaskMethods and TaskExtensionMethods', () => {
  it('each answers its own era, as the method table gives the methods', () => {
    const { session, stateless } = setup();
    expect([session.era, Object.keys(session.methods)]).toEqual([
      'session',
      ['tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/list'],
    ]);
    expect([stateless.era, Object.keys(stateless.methods)]).toEqual([
      'stateless',
      ['tasks/get', 'tasks/update', 'tasks/cancel'],
    ]);
  });

  it('serves tasks/get and tasks/cancel of a 2025-era request with the experimental tasks', async () => {
    const { session, served } = setup();
    const scope = scopeOf(LATEST_PROTOCOL_VERSION);
    const get = callRequest('tasks/get', { taskId: 't-1' }, scope, 1);
    expect(
      JSON.parse(await session.methods['tasks/get']!(get, new RecordingReply(), noteOf('tasks/get'))),
    ).toMatchObject({
      taskId: 't-1',
      ttl: 1_000,
    });
    const cancel = callRequest('tasks/cancel', { taskId: 't-1' }, scope, 2);
    await session.methods['tasks/cancel']!(cancel, new RecordingReply(), noteOf('tasks/cancel'));
    expect(served).toEqual(['2025 get t-1', '2025 cancel t-1']);
  });

  it('serves tasks/get, tasks/update and tasks/cancel of a 2026-07-28 request with the extension, naming the task on the note', async () => {
    const { stateless, served } = setup();
    const scope = scopeOf(STATELESS_PROTOCOL_VERSION);
    const note = noteOf('tasks/update');
    const reply = new RecordingReply();
    await stateless.methods['tasks/get']!(
      callRequest('tasks/get', { taskId: 't-1' }, scope, 1),
      reply,
      noteOf('tasks/get'),
    );
    const update = callRequest('tasks/update', { taskId: 't-1', inputResponses: { k: {} } }, scope, 2);
    await stateless.methods['tasks/update']!(update, reply, note);
    await stateless.methods['tasks/cancel']!(
      callRequest('tasks/cancel', { taskId: 't-1' }, scope, 3),
      reply,
      noteOf('tasks/cancel'),
    );
    expect(served).toEqual(['2026 get t-1', '2026 update t-1 {"k":{}}', '2026 cancel t-1']);
    expect(note.target).toBe('t-1');
  });
});
