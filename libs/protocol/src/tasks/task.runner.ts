import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, Optional, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { CallToolResult, CreateTaskResult, Task } from '@modelcontextprotocol/sdk/types.js';
import { JsonRpcError, JsonRpcErrorCode } from '#libs/core';
import type { RegisteredTool } from '#libs/catalog';
import { ToolInvoker } from '#libs/invocation';
import { CallScope } from '../calls/call-scope';
import { notification, type JsonRpcId } from '../wire/json-rpc';
import type { DispatchScope } from '../methods/method-handler';
import { InjectProtocolOptions, type ProtocolOptions } from '../options/protocol.options';
import { RequestNote } from '../events/request-note';
import { RequestEvents } from '../events/request-events';
import { HostState } from '../lifecycle/host-state';
import { TaskQuota } from './task-quota';
import { taskRunNote } from './task-run-note';
import { InjectTaskReplicas, type TaskReplicas } from './task-replicas';
import { LocalTaskReplicas } from './local-task-replicas';
import { InjectSessionRelay, type SessionRelay } from '../sessions/session-relay';
import { MCP_TASK_STORE, ownsTask, type McpTaskOwner, type McpTaskStore, type StoredTask } from './task.store';

/**
 * The `_meta` key that ties a result to its task (the spec's `io.modelcontextprotocol/related-task`).
 * Written out rather than imported: the SDK's `types.js` is a large zod module that would be loaded
 * at start-up for this one string (libs import only types from it).
 */
const RELATED_TASK_META_KEY = 'io.modelcontextprotocol/related-task';
const TERMINAL = new Set<Task['status']>(['completed', 'failed', 'cancelled']);
const POLL_INTERVAL_MS = 500;

/**
 * Runs tool calls as tasks (2025-11-25, experimental): answers at once with the task, runs the
 * call in the background, records its status and result in the task store and tells the
 * session with `notifications/tasks/status`. With the `cluster` option any replica answers for
 * a task: `tasks/result` polls the store, `tasks/cancel` reaches the replica running the call.
 */
@Injectable()
export class TaskRunner implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('McpTasks');
  /** Tasks running in this process: how to cancel them and how to wait for them. */
  private readonly running = new Map<string, { cancel: (reason: Error) => void; done: Promise<void> }>();
  private stopListening: (() => void) | undefined;

  constructor(
    @InjectProtocolOptions() private readonly options: ProtocolOptions,
    @Inject(MCP_TASK_STORE) private readonly store: McpTaskStore,
    private readonly invoker: ToolInvoker,
    private readonly calls: CallScope,
    private readonly telemetry: RequestEvents,
    private readonly state: HostState,
    private readonly quota: TaskQuota,
    @Optional() @InjectTaskReplicas() private readonly replicas: TaskReplicas = new LocalTaskReplicas(),
    @Optional() @InjectSessionRelay() private readonly relay?: SessionRelay,
  ) {}

  /** A message to the session's stream, on whichever replica holds it (this one's without a cluster). */
  private toSession(scope: DispatchScope, message: string): boolean {
    if (this.relay) return this.relay.toSession(scope.session, message);
    scope.session.sink?.(message);
    return scope.session.sink !== undefined;
  }

  onModuleInit(): void {
    // A tasks/cancel another replica answered: the task is cancelled in the store, its call runs here.
    this.stopListening = this.replicas.onCancel((taskId) =>
      this.running.get(taskId)?.cancel(new Error('task cancelled')),
    );
  }

  /** After the drain (not `onModuleDestroy`, which Nest runs before it): the running tasks still hear their clients. */
  onApplicationShutdown(): void {
    this.stopListening?.();
  }

  static isTerminal(task: Task): boolean {
    return TERMINAL.has(task.status);
  }

  /** @param created the note of the `tools/call` that creates the task; the run gets its own (`tasks/run`). */
  async start(
    tool: RegisteredTool,
    args: unknown,
    requested: { ttl?: unknown },
    params: Record<string, unknown>,
    id: JsonRpcId,
    scope: DispatchScope,
    confirm: boolean,
    created: RequestNote,
  ): Promise<CreateTaskResult> {
    const ttl = Math.min(
      typeof requested.ttl === 'number' && requested.ttl > 0 ? requested.ttl : this.options.tasks.ttlMs,
      this.options.tasks.ttlMs,
    );
    const now = new Date().toISOString();
    const task: StoredTask = {
      taskId: randomUUID(),
      status: 'working',
      ttl,
      createdAt: now,
      lastUpdatedAt: now,
      pollInterval: POLL_INTERVAL_MS,
      owner: ownerOf(scope),
      expiresAt: Date.now() + ttl,
      ...(this.replicas.replica !== undefined && { replica: this.replicas.replica }),
    };
    this.quota.take(task.owner.principal, task.expiresAt);
    await this.store.save(task);
    // The request that created the task is answered now; notifications go to the session's stream.
    const background: DispatchScope = {
      ...scope,
      notify: (message) => this.toSession(scope, message),
      onLost: undefined,
    };
    let cancel: (reason: Error) => void = () => undefined;
    const run = taskRunNote(tool, args, scope, created);
    // The host does not let go before the task's outcome is stored and recorded.
    this.state.enter();
    const done = this.calls
      .run(background, `task:${task.taskId}:${String(id)}`, 'tool', tool.name, params, run, (context) => {
        cancel = (reason) => context.cancellation.cancel(reason);
        // A task may run for as long as it is kept.
        return this.invoker.invoke(tool, args, context, confirm, this.options.tasks.ttlMs);
      })
      .then(
        (result) => {
          return this.finish(task.taskId, background, result.isError ? 'failed' : 'completed', { result });
        },
        (error: unknown) => {
          run.fail(
            'error',
            error instanceof JsonRpcError ? error.code : JsonRpcErrorCode.INTERNAL_ERROR,
            (error as Error)?.message,
          );
          const failure =
            error instanceof JsonRpcError
              ? { code: error.code, message: error.message, data: error.data }
              : { code: JsonRpcErrorCode.INTERNAL_ERROR, message: 'Internal error' };
          if (!(error instanceof JsonRpcError))
            this.logger.error(`task ${task.taskId} failed`, (error as Error)?.stack ?? String(error));
          return this.finish(task.taskId, background, 'failed', { error: failure });
        },
      )
      .then(
        () => undefined,
        // The store failed (a shared one may be out of reach): `done` still settles, for tasks/result.
        (error: unknown) =>
          this.logger.error(
            `task ${task.taskId}: its outcome was not stored`,
            (error as Error)?.stack ?? String(error),
          ),
      )
      .finally(() => {
        this.running.delete(task.taskId);
        this.telemetry.finish(run);
        this.state.leave();
      });
    this.running.set(task.taskId, { cancel: (reason) => cancel(reason), done });
    return { task: publicTask(task) };
  }

  /**
   * The task, if it exists and belongs to the caller (its principal, and its session when it
   * has one). Someone else's task is answered exactly like one that does not exist.
   * @throws JsonRpcError -32602 otherwise
   */
  async get(taskId: unknown, scope: DispatchScope): Promise<StoredTask> {
    const task = typeof taskId === 'string' ? await this.store.get(taskId) : undefined;
    if (!task || !ownsTask(ownerOf(scope), task))
      throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, `Unknown task: ${String(taskId)}`);
    return task;
  }

  /** Waits until the task is terminal and returns what the call returned (or throws its error). */
  async result(taskId: unknown, scope: DispatchScope): Promise<CallToolResult> {
    let task = await this.get(taskId, scope);
    while (!TaskRunner.isTerminal(task)) {
      const local = this.running.get(task.taskId);
      await (local ? local.done : new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS)));
      task = await this.get(taskId, scope);
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

  async cancel(taskId: unknown, scope: DispatchScope): Promise<Task> {
    const task = await this.get(taskId, scope);
    if (TaskRunner.isTerminal(task))
      throw new JsonRpcError(
        JsonRpcErrorCode.INVALID_PARAMS,
        `Task ${task.taskId} is already ${task.status} and cannot be cancelled`,
      );
    const updated = await this.finish(task.taskId, scope, 'cancelled', { statusMessage: 'Cancelled by the client' });
    const local = this.running.get(task.taskId);
    if (local) local.cancel(new Error('task cancelled'));
    else await this.replicas.cancel(task);
    return publicTask(updated ?? task);
  }

  async list(cursor: number, limit: number, scope: DispatchScope): Promise<{ tasks: Task[]; total: number }> {
    const { tasks, total } = await this.store.list(ownerOf(scope), cursor, limit);
    return { tasks: tasks.map(publicTask), total };
  }

  /** Records a terminal status (once: a cancelled task keeps its status when its call ends). */
  private async finish(
    taskId: string,
    scope: DispatchScope,
    status: Task['status'],
    outcome: Partial<StoredTask>,
  ): Promise<StoredTask | undefined> {
    const task = await this.store.get(taskId);
    if (!task || TaskRunner.isTerminal(task)) return task;
    const updated: StoredTask = { ...task, ...outcome, status, lastUpdatedAt: new Date().toISOString() };
    await this.store.save(updated);
    this.toSession(
      scope,
      notification('notifications/tasks/status', publicTask(updated) as unknown as Record<string, unknown>),
    );
    return updated;
  }
}

/** Who owns the tasks a request creates or may see. */
function ownerOf(scope: DispatchScope): McpTaskOwner {
  return { principal: scope.principal.id, session: scope.session.id };
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
