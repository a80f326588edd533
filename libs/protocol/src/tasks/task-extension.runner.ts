import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, Optional, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { JsonRpcError, JsonRpcErrorCode, McpClientRequestError } from '#libs/core';
import type { RegisteredTool } from '#libs/catalog';
import { ToolInvoker, type CallContext, type Invocation } from '#libs/invocation';
import { CallScope } from '../calls/call-scope';
import type { JsonRpcId } from '../wire/json-rpc';
import { EMPTY_RESULT, type ClientInputs, type DispatchScope } from '../methods/method-handler';
import { InjectProtocolOptions, type ProtocolOptions } from '../options/protocol.options';
import { RequestNote } from '../events/request-note';
import { RequestEvents } from '../events/request-events';
import { HostState } from '../lifecycle/host-state';
import { TaskQuota } from './task-quota';
import { MCP_TASK_STORE, ownsTask, type McpTaskOwner, type McpTaskStore, type StoredTask } from './task.store';
import { taskRunNote } from './task-run-note';
import { TaskInputs, type TaskInputRequests } from './task-inputs';
import { TaskStatusEvents } from './task-status.events';
import { InjectTaskReplicas, type TaskReplicas } from './task-replicas';
import { LocalTaskReplicas } from './local-task-replicas';
import { createTaskResult, detailedTask } from './task-wire';
import { declaresTasks, missingTasksExtension } from './tasks-extension';

const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);
const POLL_INTERVAL_MS = 500;
/** How long `tasks/update` waits for another replica to show the answers in the task's status. */
const REMOTE_ANSWER_WAIT_MS = 2_000;
const REMOTE_ANSWER_POLL_MS = 50;

/** A task whose call runs in this process. */
interface RunningTask {
  inputs: TaskInputs;
  cancel: (reason: Error) => void;
}

/** A `tools/call` to serve as a task: `start`'s arguments, handed on as one. */
interface TaskCall {
  tool: RegisteredTool;
  args: unknown;
  params: Record<string, unknown>;
  id: JsonRpcId;
  scope: DispatchScope;
  confirm: boolean;
  created: RequestNote;
}

/** How the call of a task ended. */
type Outcome = Pick<StoredTask, 'status' | 'result' | 'error' | 'statusMessage'>;

/**
 * Runs tool calls as tasks of the tasks extension (SEP-2663, 2026-07-28 clients that declare
 * `io.modelcontextprotocol/tasks`): answers the call with a `CreateTaskResult` once the task is
 * stored, runs the call in the background and records its status, what it waits on and its
 * outcome. The client polls `tasks/get`, answers the call's requests with `tasks/update` and may
 * `tasks/cancel`. The 2025-11-25 experimental tasks are `TaskRunner`'s; both share the task store.
 * With the `cluster` option any replica answers for a task: `tasks/update` and `tasks/cancel`
 * reach the replica running the call.
 */
@Injectable()
export class TaskExtensionRunner implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('McpTasks');
  private readonly running = new Map<string, RunningTask>();
  /** Per task, the last of its queued store updates: they apply one at a time, in order. */
  private readonly updates = new Map<string, Promise<unknown>>();
  private readonly stopListening: (() => void)[] = [];

  constructor(
    @InjectProtocolOptions() private readonly options: ProtocolOptions,
    @Inject(MCP_TASK_STORE) private readonly store: McpTaskStore,
    private readonly invoker: ToolInvoker,
    private readonly calls: CallScope,
    private readonly telemetry: RequestEvents,
    private readonly state: HostState,
    private readonly quota: TaskQuota,
    private readonly statusEvents: TaskStatusEvents,
    @Optional() @InjectTaskReplicas() private readonly replicas: TaskReplicas = new LocalTaskReplicas(),
  ) {}

  onModuleInit(): void {
    // What a client asked of another replica, for a task whose call runs here.
    this.stopListening.push(
      this.replicas.onCancel((taskId) => this.abort(taskId)),
      this.replicas.onAnswers((taskId, responses) => this.running.get(taskId)?.inputs.respond(responses)),
    );
  }

  /** After the drain (not `onModuleDestroy`, which Nest runs before it): the running tasks still hear their clients. */
  onApplicationShutdown(): void {
    this.stopListening.splice(0).forEach((stop) => stop());
  }

  /**
   * Serves a `tools/call` of a task-supporting tool from a client that declared the extension:
   * with a task from the start (`taskStart: 'call'`), or from where the handler calls
   * `continueAsTask` (`'manual'`; until then the call is served like any other).
   * @param created the note of the `tools/call`; the background run gets its own (`tasks/run`)
   * @returns the JSON of the `CreateTaskResult`, or of the call's own result when a manual call
   *   ended before it became a task
   */
  start(
    tool: RegisteredTool,
    args: unknown,
    params: Record<string, unknown>,
    id: JsonRpcId,
    scope: DispatchScope,
    confirm: boolean,
    created: RequestNote,
  ): Promise<string> {
    const call: TaskCall = { tool, args, params, id, scope, confirm, created };
    return tool.options.taskStart === 'manual' ? this.startManually(call) : this.startWithCall(call);
  }

  private async startWithCall({ tool, args, params, scope, confirm, created }: TaskCall): Promise<string> {
    const task = await this.create(scope);
    const inputs = this.inputsOf(task);
    const run = taskRunNote(tool, args, scope, created);
    let cancel: (reason: Error) => void = () => undefined;
    // The request is answered now: the call keeps nothing of its transport but who the client is.
    const background: DispatchScope = {
      ...scope,
      notify: () => false,
      onLost: undefined,
      closeStream: undefined,
      clientInputs: inputs,
      continueAsTask: undefined,
    };
    const call = this.calls.run(background, `task:${task.taskId}`, 'tool', tool.name, params, run, (context) => {
      cancel = (reason) => context.cancellation.cancel(reason);
      return this.invoke(tool, args, context, confirm);
    });
    this.track(task, inputs, call, run, (reason) => cancel(reason));
    return createTaskResult(task);
  }

  /**
   * Runs the call in the request until its handler calls `continueAsTask`: requests to the client
   * before then go where the request's go (input-required rounds), after it to the task.
   */
  private async startManually({ tool, args, params, id, scope, confirm, created }: TaskCall): Promise<string> {
    const run = taskRunNote(tool, args, scope, created);
    let task: StoredTask | undefined;
    let inputs: TaskInputs | undefined;
    let cancel: (reason: Error) => void = () => undefined;
    // Once the handler asked for a task, the client gets one, even if the call ends first.
    let starting: Promise<StoredTask> | undefined;
    let onStart: (start: { starting: Promise<StoredTask> }) => void = () => undefined;
    const started = new Promise<{ starting: Promise<StoredTask> }>((resolve) => (onStart = resolve));
    // What ties the call to the request (a lost connection aborts it) is undone at the hand-off.
    const untie: (() => void)[] = [];
    // Until then, the call asks as any 2026-07-28 call does: input-required rounds.
    const round = this.calls.openInputRound(scope, created, tool.name, params);
    const beforeTask: ClientInputs = round ??
      scope.clientInputs ?? {
        request: (method) =>
          Promise.reject(
            new McpClientRequestError(
              `${method} cannot reach the client before the call becomes a task: ask after continueAsTask()`,
              'unreachable',
            ),
          ),
      };
    const callScope: DispatchScope = {
      ...scope,
      notify: (message) => task === undefined && scope.notify(message),
      onLost:
        scope.onLost &&
        ((abort) => {
          const off = scope.onLost!(abort);
          untie.push(off);
          return off;
        }),
      closeStream: () => task === undefined && scope.closeStream?.(),
      clientInputs: {
        request: (method, requestParams, timeoutMs, signal, options) =>
          (inputs ?? beforeTask).request(method, requestParams, timeoutMs, signal, options),
        missingCapability: (capability, required, what, signal) =>
          inputs ? undefined : beforeTask.missingCapability?.(capability, required, what, signal),
      },
      continueAsTask: async () => {
        if (!starting) {
          round?.handOff();
          starting = this.create(scope).then((stored) => {
            inputs = this.inputsOf(stored);
            task = stored;
            for (const off of untie) off();
            return stored;
          });
          onStart({ starting });
        }
        await starting;
      },
    };
    const call = this.calls.run(callScope, id, 'tool', tool.name, params, run, (context) => {
      cancel = (reason) => context.cancellation.cancel(reason);
      const invoked = this.invoke(tool, args, context, confirm);
      // Once handed off, the round never decides: the value is the tool's result.
      return (round ? round.race(invoked, context.cancellation) : invoked) as Promise<Invocation<CallToolResult>>;
    });
    const first = await Promise.race([
      call.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
      started,
    ]);
    const pending = 'starting' in first ? first.starting : starting;
    if (pending) {
      const stored = await pending;
      this.track(stored, inputs!, call, run, (reason) => cancel(reason));
      return createTaskResult(stored);
    }
    // It ended before becoming a task: the request's own note tells how.
    if (round?.askedForInput) created.continuedByRetry = true;
    if (run.outcome !== 'ok') created.fail(run.outcome, run.errorCode, run.error);
    if (run.withdrawn) created.withdrawn = true;
    if ('error' in first) throw first.error;
    return JSON.stringify((first as { value: CallToolResult }).value);
  }

  /**
   * The task as `tasks/get` shows it (`DetailedTask`).
   * @throws JsonRpcError -32021 without the extension, -32602 for a task that is unknown or another's
   */
  async get(taskId: unknown, scope: DispatchScope): Promise<string> {
    return JSON.stringify(detailedTask(await this.owned(taskId, scope, 'tasks/get')));
  }

  /**
   * Delivers the client's answers to what the task waits on (`tasks/update`) and acknowledges.
   * Keys not outstanding are ignored; the ack comes once the task's status shows the answers.
   * @throws JsonRpcError -32021 without the extension, -32602 for an unknown task or malformed answers
   */
  async update(taskId: unknown, responses: unknown, scope: DispatchScope): Promise<string> {
    const task = await this.owned(taskId, scope, 'tasks/update');
    if (typeof responses !== 'object' || responses === null || Array.isArray(responses))
      throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, 'tasks/update: "inputResponses" must be an object');
    for (const [key, response] of Object.entries(responses))
      if (typeof response !== 'object' || response === null || Array.isArray(response))
        throw new JsonRpcError(
          JsonRpcErrorCode.INVALID_PARAMS,
          `tasks/update: the answer under "${key}" must be an object (the client's result for that request)`,
        );
    const answers = responses as Record<string, unknown>;
    const local = this.running.get(task.taskId);
    if (local) {
      local.inputs.respond(answers);
      await this.updates.get(task.taskId);
    } else if (this.replicas.runsElsewhere(task)) {
      await this.replicas.answer(task, answers);
      await this.shown(task.taskId, Object.keys(answers));
    }
    return EMPTY_RESULT;
  }

  /**
   * Cancels the task (`tasks/cancel`): it is `cancelled` from now on and its call is aborted.
   * Acknowledged alike when the task had ended already.
   * @throws JsonRpcError -32021 without the extension, -32602 for an unknown task
   */
  async cancel(taskId: unknown, scope: DispatchScope): Promise<string> {
    const task = await this.owned(taskId, scope, 'tasks/cancel');
    if (!TERMINAL.has(task.status)) {
      await this.settle(task.taskId, { status: 'cancelled', statusMessage: 'Cancelled by the client' });
      if (this.running.has(task.taskId)) this.abort(task.taskId);
      else await this.replicas.cancel(task);
    }
    return EMPTY_RESULT;
  }

  /** Aborts the call of a task cancelled, and what it waits on. */
  private abort(taskId: string): void {
    const running = this.running.get(taskId);
    running?.cancel(new Error('task cancelled'));
    running?.inputs.close('the task was cancelled');
  }

  /**
   * Waits (a while) until the stored task no longer waits on `keys`: the replica running it took
   * the answers. An answer to no outstanding request is ignored there, as here.
   */
  private async shown(taskId: string, keys: readonly string[]): Promise<void> {
    const deadline = Date.now() + REMOTE_ANSWER_WAIT_MS;
    for (;;) {
      const task = await this.store.get(taskId);
      const waiting = task?.inputRequests ?? {};
      if (!task || TERMINAL.has(task.status) || !keys.some((key) => key in waiting)) return;
      if (Date.now() >= deadline) return;
      await new Promise((resolve) => setTimeout(resolve, REMOTE_ANSWER_POLL_MS));
    }
  }

  /**
   * Of `taskIds`, those the request's caller may follow (`subscriptions/listen` agrees to send
   * `notifications/tasks` for these): tasks that exist and are the caller's.
   * @throws JsonRpcError -32021 when the request did not declare the extension
   */
  async followable(taskIds: readonly string[], scope: DispatchScope): Promise<string[]> {
    if (!declaresTasks(scope.session)) throw missingTasksExtension('task notifications belong to the tasks extension');
    const owner = ownerOf(scope);
    const tasks = await Promise.all(taskIds.map((taskId) => this.store.get(taskId)));
    return taskIds.filter((_taskId, index) => tasks[index] !== undefined && ownsTask(owner, tasks[index]));
  }

  /** The task a request names, checked against the request's extension and principal. */
  private async owned(taskId: unknown, scope: DispatchScope, method: string): Promise<StoredTask> {
    if (!declaresTasks(scope.session)) throw missingTasksExtension(`${method} belongs to the tasks extension`);
    const task = typeof taskId === 'string' ? await this.store.get(taskId) : undefined;
    // Someone else's task is answered exactly like one that does not exist.
    if (!task || !ownsTask(ownerOf(scope), task))
      throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, `Unknown task: ${String(taskId)}`);
    return task;
  }

  /** Stores a new `working` task of the caller; a `tasks/get` finds it once this resolves. */
  private async create(scope: DispatchScope): Promise<StoredTask> {
    const ttl = this.options.tasks.ttlMs;
    const now = new Date();
    const task: StoredTask = {
      taskId: randomUUID(),
      status: 'working',
      ttl,
      createdAt: now.toISOString(),
      lastUpdatedAt: now.toISOString(),
      pollInterval: POLL_INTERVAL_MS,
      owner: ownerOf(scope),
      expiresAt: now.getTime() + ttl,
      ...(this.replicas.replica !== undefined && { replica: this.replicas.replica }),
    };
    this.quota.take(task.owner.principal, task.expiresAt);
    await this.store.save(task);
    this.publish(task);
    return task;
  }

  /** The requests of the task's call to its client, reflected in the task's status. */
  private inputsOf(task: StoredTask): TaskInputs {
    return new TaskInputs((outstanding) => void this.awaitInput(task.taskId, outstanding));
  }

  private invoke(tool: RegisteredTool, args: unknown, context: CallContext, confirm: boolean) {
    // A task may run for as long as it is kept.
    return this.invoker.invoke(tool, args, context, confirm, this.options.tasks.ttlMs);
  }

  /** Records how the call of a task ends, and forgets it then. */
  private track(
    task: StoredTask,
    inputs: TaskInputs,
    call: Promise<CallToolResult>,
    run: RequestNote,
    cancel: (reason: Error) => void,
  ): void {
    this.running.set(task.taskId, { inputs, cancel });
    // The host does not let go before the task's outcome is stored and recorded.
    this.state.enter();
    void call
      .then(
        // A tool's own error (`isError`) is a completed call; `failed` is for JSON-RPC errors.
        (result) => this.settle(task.taskId, { status: 'completed', result }),
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
          return this.settle(task.taskId, { status: 'failed', error: failure, statusMessage: failure.message });
        },
      )
      .catch((error: unknown) =>
        this.logger.error(`task ${task.taskId}: its outcome was not stored`, (error as Error)?.stack ?? String(error)),
      )
      .finally(() => {
        this.running.delete(task.taskId);
        inputs.close('the task ended');
        this.telemetry.finish(run);
        this.state.leave();
      });
  }

  /** Records a terminal status, once: a task that ended keeps how it ended. */
  private settle(taskId: string, outcome: Outcome): Promise<void> {
    return this.change(taskId, (task) =>
      TERMINAL.has(task.status) ? undefined : { ...task, ...outcome, inputRequests: undefined },
    );
  }

  /** The task waits on `outstanding` (`input_required`), or on nothing again (`working`). */
  private awaitInput(taskId: string, outstanding: TaskInputRequests): Promise<void> {
    const waiting = Object.keys(outstanding).length > 0;
    return this.change(taskId, (task) =>
      TERMINAL.has(task.status)
        ? undefined
        : {
            ...task,
            status: waiting ? 'input_required' : 'working',
            statusMessage: waiting ? 'Waiting for the client to answer inputRequests' : undefined,
            inputRequests: waiting ? outstanding : undefined,
          },
    );
  }

  /** Applies `update` to the stored task after the task's earlier updates, and publishes the change. */
  private change(taskId: string, update: (task: StoredTask) => StoredTask | undefined): Promise<void> {
    const previous = this.updates.get(taskId) ?? Promise.resolve();
    const next = previous
      .then(async () => {
        const task = await this.store.get(taskId);
        const updated = task && update(task);
        if (!updated) return;
        const saved: StoredTask = { ...updated, lastUpdatedAt: new Date().toISOString() };
        await this.store.save(saved);
        this.publish(saved);
      })
      .catch((error: unknown) =>
        this.logger.error(`task ${taskId} was not updated`, (error as Error)?.stack ?? String(error)),
      );
    this.updates.set(taskId, next);
    void next.finally(() => {
      if (this.updates.get(taskId) === next) this.updates.delete(taskId);
    });
    return next;
  }

  private publish(task: StoredTask): void {
    this.statusEvents.publish({ task: detailedTask(task), owner: task.owner });
  }
}

/** Who owns the tasks a request creates or may see: its principal (2026-07-28 requests have no session). */
function ownerOf(scope: DispatchScope): McpTaskOwner {
  return { principal: scope.principal.id, session: scope.session.id };
}
