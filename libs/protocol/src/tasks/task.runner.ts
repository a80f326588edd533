import { Injectable, Optional } from '@nestjs/common';
import type { CallToolResult, CreateTaskResult, Task } from '@modelcontextprotocol/sdk/types.js';
import { JsonRpcError, JsonRpcErrorCode } from '#libs/core';
import type { RegisteredTool } from '#libs/catalog';
import { notification } from '../wire/json-rpc';
import { InjectProtocolOptions, type ProtocolOptions } from '../options/protocol.options';
import { InjectSessionRelay, type SessionRelay } from '../sessions/session-relay';
import type { AdmittedCall } from '../admission/admitted-call';
import type { McpRequest } from '../requests/mcp-request';
import type { ReplyChannel } from '../requests/reply-channel';
import { BackgroundReply } from './background-reply';
import { ownerOf, POLL_INTERVAL_MS, TaskLife, type TaskEra } from './task-life';
import type { StoredTask } from './task.store';

/**
 * The `_meta` key that ties a result to its task (the spec's `io.modelcontextprotocol/related-task`).
 * Written out rather than imported: the SDK's `types.js` is a large zod module that would be loaded
 * at start-up for this one string (libs import only types from it).
 */
const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';

/**
 * The 2025-11-25 experimental tasks: a `tools/call` with `task` is answered at once with the task
 * (`TaskLife` runs its call), the session is told each change with `notifications/tasks/status`,
 * and `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` read the task store, so any
 * replica answers for a task (`tasks/result` polls it for a call that runs elsewhere).
 */
@Injectable()
export class TaskRunner implements TaskEra {
  constructor(
    @InjectProtocolOptions() private readonly options: ProtocolOptions,
    private readonly life: TaskLife,
    @Optional() @InjectSessionRelay() private readonly relay?: SessionRelay,
  ) {}

  static isTerminal(task: Task): boolean {
    return TaskLife.isTerminal(task);
  }

  /** Creates the task of an admitted `tools/call` (its `ttl` at most the host's) and runs its call. */
  async start(
    call: AdmittedCall<RegisteredTool>,
    requested: { ttl?: unknown },
    confirm: boolean,
  ): Promise<CreateTaskResult> {
    const ttl = Math.min(
      typeof requested.ttl === 'number' && requested.ttl > 0 ? requested.ttl : this.options.tasks.ttlMs,
      this.options.tasks.ttlMs,
    );
    const task = await this.life.create(call.request, ttl);
    this.life.run(task, call, confirm, this);
    return { task: publicTask(task) };
  }

  /**
   * The task, if it exists and belongs to the caller (its principal, and its session when it
   * has one). Someone else's task is answered exactly like one that does not exist.
   * @throws JsonRpcError -32602 otherwise
   */
  async get(taskId: unknown, request: McpRequest): Promise<StoredTask> {
    const task = await this.life.owned(taskId, request);
    if (!task) throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, `Unknown task: ${String(taskId)}`);
    return task;
  }

  /** Waits until the task is terminal and returns what the call returned (or throws its error). */
  async result(taskId: unknown, request: McpRequest): Promise<CallToolResult> {
    let task = await this.get(taskId, request);
    while (!TaskLife.isTerminal(task)) {
      await (this.life.ended(task.taskId) ?? new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS)));
      task = await this.get(taskId, request);
    }
    if (task.error) throw new JsonRpcError(task.error.code, task.error.message, task.error.data);
    if (!task.result)
      throw new JsonRpcError(
        JsonRpcErrorCode.INVALID_PARAMS,
        `Task ${task.taskId} was ${task.status}; it has no result`,
      );
    const result = task.result;
    return { ...result, _meta: { ...result._meta, [RELATED_TASK_META_KEY]: { taskId: task.taskId } } };
  }

  async cancel(taskId: unknown, request: McpRequest): Promise<Task> {
    const task = await this.get(taskId, request);
    if (TaskLife.isTerminal(task))
      throw new JsonRpcError(
        JsonRpcErrorCode.INVALID_PARAMS,
        `Task ${task.taskId} is already ${task.status} and cannot be cancelled`,
      );
    return publicTask((await this.life.cancel(task, this, request)) ?? task);
  }

  async list(cursor: number, limit: number, request: McpRequest): Promise<{ tasks: Task[]; total: number }> {
    const { tasks, total } = await this.life.store.list(ownerOf(request), cursor, limit);
    return { tasks: tasks.map(publicTask), total };
  }

  /** A tool's own error (`isError`) fails its task in this era. */
  statusOf(result: CallToolResult): 'completed' | 'failed' {
    return result.isError ? 'failed' : 'completed';
  }

  /** `notifications/tasks/status` on the session's stream, wherever a replica holds it. */
  announce(task: StoredTask, request: McpRequest): void {
    this.toSession(
      request,
      notification('notifications/tasks/status', publicTask(task) as unknown as Record<string, unknown>),
    );
  }

  /** The task's call speaks on the session's stream (its progress, its log messages). */
  backgroundReply(request: McpRequest): ReplyChannel {
    return new BackgroundReply((message) => this.toSession(request, message));
  }

  /** A message to the session's stream, on whichever replica holds it (this one's without a cluster). */
  private toSession({ session }: McpRequest, message: string): boolean {
    if (this.relay) return this.relay.toSession(session, message);
    session.sink?.(message);
    return session.sink !== undefined;
  }
}

/** The protocol's view of a stored task. */
export function publicTask({
  owner: _owner,
  expiresAt: _expiresAt,
  result: _result,
  error: _error,
  inputRequests: _inputRequests,
  replica: _replica,
  ...task
}: StoredTask): Task {
  return task;
}
