import { JsonRpcError, LATEST_PROTOCOL_VERSION, STATELESS_PROTOCOL_VERSION } from '#libs/core';
import type { CallAdmission } from '../admission/call-admission';
import { callRequest, principal, RecordingReply, type RequestOrigin } from '../testing/protocol-testing';
import type { ProtocolOptions } from '../options/protocol.options';
import { RequestNote } from '../events/request-note';
import { McpSession } from '../sessions/mcp-session';
import { traitsOf } from '../wire/mcp-method.table';
import type { TaskExtensionRunner } from './task-extension.runner';
import type { TaskRunner } from './task.runner';
import { TaskMethods } from './task.methods';

const TASK = {
  taskId: 't-1',
  status: 'working',
  ttl: 1_000,
  createdAt: '2026-11-25T00:00:00.000Z',
  lastUpdatedAt: '2026-11-25T00:00:00.000Z',
  owner: { principal: 'alice', session: undefined },
  expiresAt: 0,
};

/** The method group over stand-ins of both runners and the audit gate, recording who served what. */
function setup(gateOpen = true) {
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
  const admission = {
    checkAuditGate: () => {
      if (!gateOpen) throw new JsonRpcError(-32603, 'Service unavailable');
    },
  } as unknown as CallAdmission;
  const methods = new TaskMethods({ pageSize: 10 } as ProtocolOptions, tasks, extension, admission).methods;
  return { methods, served };
}

function scopeOf(version: string): RequestOrigin {
  return { session: new McpSession(undefined, version), transport: 'http', principal: principal('alice'), headers: {} };
}

const noteOf = (method: string) =>
  new RequestNote(method, traitsOf(method), 'http', 'alice', undefined, undefined, undefined);

describe('TaskMethods', () => {
  it('serves tasks/get and tasks/cancel of a 2025-era request with the experimental tasks', async () => {
    const { methods, served } = setup();
    const scope = scopeOf(LATEST_PROTOCOL_VERSION);
    expect(
      JSON.parse(
        await methods['tasks/get']!(
          callRequest('tasks/get', { taskId: 't-1' }, scope, 1),
          new RecordingReply(),
          noteOf('tasks/get'),
        ),
      ),
    ).toMatchObject({
      taskId: 't-1',
      ttl: 1_000,
    });
    await methods['tasks/cancel']!(
      callRequest('tasks/cancel', { taskId: 't-1' }, scope, 2),
      new RecordingReply(),
      noteOf('tasks/cancel'),
    );
    expect(served).toEqual(['2025 get t-1', '2025 cancel t-1']);
  });

  it('serves tasks/get, tasks/update and tasks/cancel of a 2026-07-28 request with the extension, naming the task on the note', async () => {
    const { methods, served } = setup();
    const scope = scopeOf(STATELESS_PROTOCOL_VERSION);
    const note = noteOf('tasks/update');
    await methods['tasks/get']!(
      callRequest('tasks/get', { taskId: 't-1' }, scope, 1),
      new RecordingReply(),
      noteOf('tasks/get'),
    );
    await methods['tasks/update']!(
      callRequest('tasks/update', { taskId: 't-1', inputResponses: { k: {} } }, scope, 2),
      new RecordingReply(),
      note,
    );
    await methods['tasks/cancel']!(
      callRequest('tasks/cancel', { taskId: 't-1' }, scope, 3),
      new RecordingReply(),
      noteOf('tasks/cancel'),
    );
    expect(served).toEqual(['2026 get t-1', '2026 update t-1 {"k":{}}', '2026 cancel t-1']);
    expect(note.target).toBe('t-1');
  });

  it("gates the extension's tasks/get (it hands out results) on the audit trail, not the 2025 one", async () => {
    const { methods, served } = setup(false);
    await expect(
      methods['tasks/get']!(
        callRequest('tasks/get', { taskId: 't-1' }, scopeOf(STATELESS_PROTOCOL_VERSION), 1),
        new RecordingReply(),
        noteOf('tasks/get'),
      ),
    ).rejects.toThrow('Service unavailable');
    await methods['tasks/get']!(
      callRequest('tasks/get', { taskId: 't-1' }, scopeOf(LATEST_PROTOCOL_VERSION), 2),
      new RecordingReply(),
      noteOf('tasks/get'),
    );
    expect(served).toEqual(['2025 get t-1']);
  });
});
