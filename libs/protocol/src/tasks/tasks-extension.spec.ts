import { JsonRpcErrorCode, LATEST_PROTOCOL_VERSION, STATELESS_PROTOCOL_VERSION } from '#libs/core';
import { McpSession } from '../sessions/mcp-session';
import { routingParamOf } from '../wire/mcp-method.table';
import { declaresTasks, missingTasksExtension, TASKS_EXTENSION } from './tasks-extension';

function session(version: string, capabilities: Record<string, unknown>): McpSession {
  const made = new McpSession(undefined, version);
  made.clientCapabilities = capabilities;
  return made;
}

describe('the tasks extension', () => {
  it('is declared only by a 2026-07-28 request naming it under extensions', () => {
    const declared = { extensions: { [TASKS_EXTENSION]: {} } };
    expect(declaresTasks(session(STATELESS_PROTOCOL_VERSION, declared))).toBe(true);
    expect(declaresTasks(session(STATELESS_PROTOCOL_VERSION, { extensions: {} }))).toBe(false);
    expect(declaresTasks(session(STATELESS_PROTOCOL_VERSION, { tasks: {} }))).toBe(false);
    // The extension does not exist for 2025-era sessions, whatever they declare.
    expect(declaresTasks(session(LATEST_PROTOCOL_VERSION, declared))).toBe(false);
  });

  it('is named in the -32021 error of a client that lacks it (HTTP 400)', () => {
    const error = missingTasksExtension('tool "export" runs only as a task');
    expect(error.code).toBe(JsonRpcErrorCode.MISSING_CLIENT_CAPABILITY);
    expect(error.httpStatus).toBe(400);
    expect(error.data).toEqual({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
    expect(error.message).toContain('tool "export" runs only as a task');
  });

  it('routes its methods by task id (the Mcp-Name header mirrors params.taskId)', () => {
    expect(['tasks/get', 'tasks/update', 'tasks/cancel'].map(routingParamOf)).toEqual(['taskId', 'taskId', 'taskId']);
    expect(['tools/call', 'resources/read', 'tools/list', 'tasks/result'].map(routingParamOf)).toEqual([
      'name',
      'uri',
      undefined,
      undefined,
    ]);
  });
});
