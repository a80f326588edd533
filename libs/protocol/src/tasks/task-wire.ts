import { JsonRpcErrorCode } from '#libs/core';
import type { StoredTask } from './task.store';

/**
 * The `Task` fields of the tasks extension (2026-07-28): the 2025-11-25 `ttl` and `pollInterval`
 * are `ttlMs` and `pollIntervalMs` on this wire (integer milliseconds).
 */
function taskFields(task: StoredTask): Record<string, unknown> & { taskId: string; status: string } {
  return {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage !== undefined && { statusMessage: task.statusMessage }),
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttl ?? null,
    ...(task.pollInterval !== undefined && { pollIntervalMs: task.pollInterval }),
  };
}

/**
 * The `CreateTaskResult` answering a call that became a task: flat (`Result & Task`), told apart
 * from a plain result by `resultType: "task"`, and nothing of the outcome (that is for `tasks/get`).
 */
export function createTaskResult(task: StoredTask): string {
  return JSON.stringify({ resultType: 'task', ...taskFields(task) });
}

/**
 * The task as `tasks/get` and `notifications/tasks` show it (`DetailedTask`): with what it waits
 * on while `input_required`, its result once `completed` and its JSON-RPC error once `failed`.
 * The result is the call's own, without the 2025-11-25 related-task `_meta` (the task id is here).
 */
export function detailedTask(task: StoredTask): Record<string, unknown> & { taskId: string; status: string } {
  const fields = taskFields(task);
  switch (task.status) {
    case 'input_required':
      return { ...fields, inputRequests: task.inputRequests ?? {} };
    case 'completed':
      return { ...fields, result: task.result ?? { content: [] } };
    case 'failed':
      return { ...fields, error: task.error ?? { code: JsonRpcErrorCode.INTERNAL_ERROR, message: 'Internal error' } };
    default:
      return fields;
  }
}
