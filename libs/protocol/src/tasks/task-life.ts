import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, Optional, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { JsonRpcError, JsonRpcErrorCode } from '#libs/core';
import type { RegisteredTool } from '#libs/catalog';
import { ToolInvoker, type CallContext, type Invocation } from '#libs/invocation';
import { CallScope } from '../calls/call-scope';
import { InjectProtocolOptions, type ProtocolOptions } from '../options/protocol.options';
import type { RequestNote } from '../events/request-note';
import { RequestEvents } from '../events/request-events';
import { HostState } from '../lifecycle/host-state';
import type { AdmittedCall } from '../admission/admitted-call';
import type { McpRequest } from '../requests/mcp-request';
import type { ReplyChannel } from '../requests/reply-channel';
import { TaskQuota } from './task-quota';
import { InjectTaskReplicas, type TaskReplicas } from './task-replicas';
import { LocalTaskReplicas } from './local-task-replicas';
import { taskRunNote } from './task-run-note';
import type { TaskInputs } from './task-inputs';
import { MCP_TASK_STORE, ownsTask, type McpTaskOwner, type McpTaskStore, type StoredTask } from './task.store';

const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);
export const POLL_INTERVAL_MS = 500;

/**
 * What differs between the eras' tasks (2025-11-25 experimental tasks, the 2026-07-28 tasks
 * extension); the life cycle (`TaskLife`) is the same.
 */
export interface TaskEra {
  /** The status a call's result gives its task (2025-11-25: `failed` for a tool's own error). */
  statusOf(result: CallToolResult): 'completed' | 'failed';
  /** Tells the client of a change to the task (`request` is the one that made it, or the task's). */
  announce(task: StoredTask, request: McpRequest): void;
  /** Where the task's call sends its notifications, the request that created it answered. */
  backgroundReply(request: McpRequest): ReplyChannel;
}

/** How the call of a task ended. */
export type TaskOutcome = Pick<StoredTask, 'status' | 'result' | 'error' | 'statusMessage'>;

/** The call of a task, running in the background once its request was answered with the task. */
export interface BackgroundCall {
  readonly task: StoredTask;
  /** How the call ends. */
  readonly result: Promise<CallToolResult>;
  /** The task's audit record (`tasks/run`), recorded at the end. */
  readonly run: RequestNote;
  readonly cancel: (reason: Error) => void;
  /** The task's requests to the client, answered through `tasks/update` or `tasks/result`. */
  readonly inputs?: TaskInputs;
}

/** A task whose call runs in this process. */
interface RunningTask {
  cancel: (reason: Error) => void;
  /** Settles once the task's outcome is stored (or could not be). */
  done: Promise<void>;
  /** Its requests to the client (tasks extension). */
  inputs?: TaskInputs;
}

/**
 * The one life of a task, whichever era asked for it: stored `working` under its caller's quota,
 * its call run in the background (the host does not let go before its outcome is stored and
 * recorded as a `tasks/run`), changes applied one at a time and told the client, cancelled
 * wherever its call runs. The eras' runners (`TaskRunner`, `TaskExtensionRunner`) are adapters:
 * their wire, and their `TaskEra`.
 */
@Injectable()
export class TaskLife implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('McpTasks');
  private readonly running = new Map<string, RunningTask>();
  /** Per task, the last of its queued store updates: they apply one at a time, in order. */
  private readonly updates = new Map<string, Promise<void>>();
  private readonly stopListening: (() => void)[] = [];

  constructor(
    @InjectProtocolOptions() private readonly options: ProtocolOptions,
    @Inject(MCP_TASK_STORE) readonly store: McpTaskStore,
    private readonly invoker: ToolInvoker,
    private readonly calls: CallScope,
    private readonly events: RequestEvents,
    private readonly state: HostState,
    private readonly quota: TaskQuota,
    @Optional() @InjectTaskReplicas() readonly replicas: TaskReplicas = new LocalTaskReplicas(),
  ) {}

  onModuleInit(): void {
    // What a client asked of another replica, for a task whose call runs here.
    this.stopListening.push(
      this.replicas.onCancel((taskId) => this.abort(taskId)),
      this.replicas.onAnswers((taskId, responses) => this.running.get(taskId)?.inputs?.respond(responses)),
    );
  }

  /** After the drain (not `onModuleDestroy`, which Nest runs before it): the running tasks still hear their clients. */
  onApplicationShutdown(): void {
    this.stopListening.splice(0).forEach((stop) => stop());
  }

  static isTerminal(task: Pick<StoredTask, 'status'>): boolean {
    return TERMINAL.has(task.status);
  }

  /** Stores a new `working` task of the request's caller; a `tasks/get` finds it once this resolves. */
  async create(request: McpRequest, ttl: number): Promise<StoredTask> {
    const now = new Date();
    const task: StoredTask = {
      taskId: randomUUID(),
      status: 'working',
      ttl,
      createdAt: now.toISOString(),
      lastUpdatedAt: now.toISOString(),
      pollInterval: POLL_INTERVAL_MS,
      owner: ownerOf(request),
      expiresAt: now.getTime() + ttl,
      ...(this.replicas.replica !== undefined && { replica: this.replicas.replica }),
    };
    this.quota.take(task.owner.principal, task.expiresAt);
    await this.store.save(task);
    return task;
  }

  /** Runs the call of `task` in the background (its request is answered with the task), and settles the task with its outcome. */
  run(task: StoredTask, call: AdmittedCall<RegisteredTool>, confirm: boolean, era: TaskEra, inputs?: TaskInputs): void {
    const run = taskRunNote(call);
    let cancel: (reason: Error) => void = () => undefined;
    const result = this.calls.run(
      { ...call, note: run },
      (context) => {
        cancel = (reason) => context.cancellation.cancel(reason);
        return this.invoke(call, context, confirm);
      },
      { id: `task:${task.taskId}`, reply: era.backgroundReply(call.request), clientInputs: inputs },
    );
    this.track({ task, result, run, cancel: (reason) => cancel(reason), inputs }, era, call.request);
  }

  /** Invokes the tool of a task's call: a task may run for as long as it is kept. */
  invoke(
    call: AdmittedCall<RegisteredTool>,
    context: CallContext,
    confirm: boolean,
  ): Promise<Invocation<CallToolResult>> {
    const checked = call.checked ?? this.invoker.check(call.entry, call.args);
    return this.invoker.invoke(call.entry, checked, context, confirm, this.options.tasks.ttlMs);
  }

  /**
   * Settles the task of `call` with how its result ends, and forgets it then; until then it is
   * cancellable here and the host does not let go.
   */
  track(call: BackgroundCall, era: TaskEra, request: McpRequest): void {
    const { task, result, run, cancel, inputs } = call;
    this.state.enter();
    const done = result
      .then(
        (value) => this.settle(task.taskId, { status: era.statusOf(value), result: value }, era, request),
        (error: unknown) => {
          if (!run.withdrawn)
            run.fail(
              'error',
              error instanceof JsonRpcError ? error.code : JsonRpcErrorCode.INTERNAL_ERROR,
              (error as Error)?.message,
            );
          if (!(error instanceof JsonRpcError))
            this.logger.error(`task ${task.taskId} failed`, (error as Error)?.stack ?? String(error));
          const failure =
            error instanceof JsonRpcError
              ? { code: error.code, message: error.message, ...(error.data !== undefined && { data: error.data }) }
              : { code: JsonRpcErrorCode.INTERNAL_ERROR, message: 'Internal error' };
          return this.settle(
            task.taskId,
            { status: 'failed', error: failure, statusMessage: failure.message },
            era,
            request,
          );
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
        inputs?.close('the task ended');
        this.events.finish(run);
        this.state.leave();
      });
    this.running.set(task.taskId, { cancel, done, inputs });
  }

  /** The task, if it exists and is the request's caller's; someone else's is `undefined` too. */
  async owned(taskId: unknown, request: McpRequest): Promise<StoredTask | undefined> {
    const task = typeof taskId === 'string' ? await this.store.get(taskId) : undefined;
    return task && ownsTask(ownerOf(request), task) ? task : undefined;
  }

  /** Settles once the call of `taskId`, running here, has its outcome stored; at once when it runs elsewhere. */
  ended(taskId: string): Promise<void> | undefined {
    return this.running.get(taskId)?.done;
  }

  /** The requests to the client of a task whose call runs here. */
  inputsOf(taskId: string): TaskInputs | undefined {
    return this.running.get(taskId)?.inputs;
  }

  /**
   * Cancels a task: `cancelled` from now on, its call aborted wherever it runs.
   * @returns the task as stored then
   */
  async cancel(task: StoredTask, era: TaskEra, request: McpRequest): Promise<StoredTask | undefined> {
    const updated = await this.settle(
      task.taskId,
      { status: 'cancelled', statusMessage: 'Cancelled by the client' },
      era,
      request,
    );
    if (this.running.has(task.taskId)) this.abort(task.taskId);
    else await this.replicas.cancel(task);
    return updated;
  }

  /** Records a terminal status, once: a task that ended keeps how it ended. */
  settle(taskId: string, outcome: TaskOutcome, era: TaskEra, request: McpRequest): Promise<StoredTask | undefined> {
    return this.change(
      taskId,
      (task) => (TaskLife.isTerminal(task) ? undefined : { ...task, ...outcome, inputRequests: undefined }),
      era,
      request,
    );
  }

  /**
   * Applies `update` to the stored task after the task's earlier updates, and announces the change.
   * @returns the task as stored after it (unchanged when `update` returns `undefined`); rejects
   *   when the store cannot be read or written
   */
  change(
    taskId: string,
    update: (task: StoredTask) => StoredTask | undefined,
    era: TaskEra,
    request: McpRequest,
  ): Promise<StoredTask | undefined> {
    const previous = this.updates.get(taskId) ?? Promise.resolve();
    const next = previous.then(async () => {
      const task = await this.store.get(taskId);
      const updated = task && update(task);
      if (!updated) return task;
      const saved: StoredTask = { ...updated, lastUpdatedAt: new Date().toISOString() };
      await this.store.save(saved);
      era.announce(saved, request);
      return saved;
    });
    // The next update waits for this one, whether or not it could be stored.
    const queued = next.then(
      () => undefined,
      () => undefined,
    );
    this.updates.set(taskId, queued);
    void queued.finally(() => {
      if (this.updates.get(taskId) === queued) this.updates.delete(taskId);
    });
    return next;
  }

  /** Settles once the updates queued for `taskId` so far are applied. */
  async applied(taskId: string): Promise<void> {
    await this.updates.get(taskId);
  }

  /** Aborts the call of a task cancelled, and what it waits on. */
  private abort(taskId: string): void {
    const running = this.running.get(taskId);
    running?.cancel(new Error('task cancelled'));
    running?.inputs?.close('the task was cancelled');
  }
}

/** Who owns the tasks a request creates or may see: its principal, and its session when it has one. */
export function ownerOf(request: McpRequest): McpTaskOwner {
  return { principal: request.principal.id, session: request.session.id };
}
