import { Injectable, Logger } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { JsonRpcError, JsonRpcErrorCode } from '#libs/core';
import type { RegisteredTool } from '#libs/catalog';
import { EMPTY_RESULT } from '../methods/method-handler';
import { InjectProtocolOptions, type ProtocolOptions } from '../options/protocol.options';
import type { AdmittedCall } from '../admission/admitted-call';
import type { McpRequest } from '../requests/mcp-request';
import type { ReplyChannel } from '../requests/reply-channel';
import { BackgroundReply } from './background-reply';
import { ownerOf, TaskLife } from './task-life';
import { TaskHandOff, type HandOffTarget } from './task-hand-off';
import { TaskInputs, type TaskInputRequests } from './task-inputs';
import { TaskStatusEvents } from './task-status.events';
import { ownsTask, type StoredTask } from './task.store';
import { createTaskResult, detailedTask } from './task-wire';
import { declaresTasks, missingTasksExtension } from './tasks-extension';

/** How long `tasks/update` waits for another replica to show the answers in the task's status. */
const REMOTE_ANSWER_WAIT_MS = 2_000;
const REMOTE_ANSWER_POLL_MS = 50;
/** A task's call has no way back to its client in this era: the client polls `tasks/get`. */
const SILENT = new BackgroundReply(() => false);

/**
 * The tasks extension (SEP-2663, 2026-07-28 clients that declare `io.modelcontextprotocol/tasks`):
 * a call of a task-supporting tool is answered with a `CreateTaskResult` once the task is stored
 * (`TaskLife` runs its call), or becomes a task where its handler says so (`TaskHandOff`). The
 * client polls `tasks/get`, answers the call's requests with `tasks/update` and may
 * `tasks/cancel`; each change is published to `subscriptions/listen` streams (`TaskStatusEvents`).
 * With the `cluster` option any replica answers for a task: `tasks/update` and `tasks/cancel`
 * reach the replica running the call.
 */
@Injectable()
export class TaskExtensionRunner implements HandOffTarget {
  private readonly logger = new Logger('McpTasks');

  constructor(
    @InjectProtocolOptions() private readonly options: ProtocolOptions,
    private readonly life: TaskLife,
    private readonly handOff: TaskHandOff,
    private readonly statusEvents: TaskStatusEvents,
  ) {}

  /**
   * Serves an admitted `tools/call` of a task-supporting tool from a client that declared the
   * extension: with a task from the start (`taskStart: 'call'`), or from where the handler calls
   * `continueAsTask` (`'manual'`; until then the call is served like any other).
   * @returns the JSON of the `CreateTaskResult`, or of the call's own result when a manual call
   *   ended before it became a task
   */
  async start(call: AdmittedCall<RegisteredTool>, confirm: boolean): Promise<string> {
    if (call.entry.options.taskStart === 'manual') return this.handOff.start(call, confirm, this);
    const task = await this.create(call.request);
    this.life.run(task, call, confirm, this, this.inputsFor(task, call.request));
    return createTaskResult(task);
  }

  /**
   * The task as `tasks/get` shows it (`DetailedTask`).
   * @throws JsonRpcError -32021 without the extension, -32602 for a task that is unknown or another's
   */
  async get(taskId: unknown, request: McpRequest): Promise<string> {
    return JSON.stringify(detailedTask(await this.owned(taskId, request, 'tasks/get')));
  }

  /**
   * Delivers the client's answers to what the task waits on (`tasks/update`) and acknowledges.
   * Keys not outstanding are ignored; the ack comes once the task's status shows the answers.
   * @throws JsonRpcError -32021 without the extension, -32602 for an unknown task or malformed answers
   */
  async update(taskId: unknown, responses: unknown, request: McpRequest): Promise<string> {
    const task = await this.owned(taskId, request, 'tasks/update');
    if (typeof responses !== 'object' || responses === null || Array.isArray(responses))
      throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, 'tasks/update: "inputResponses" must be an object');
    for (const [key, response] of Object.entries(responses))
      if (typeof response !== 'object' || response === null || Array.isArray(response))
        throw new JsonRpcError(
          JsonRpcErrorCode.INVALID_PARAMS,
          `tasks/update: the answer under "${key}" must be an object (the client's result for that request)`,
        );
    const answers = responses as Record<string, unknown>;
    const local = this.life.inputsOf(task.taskId);
    if (local) {
      local.respond(answers);
      await this.life.applied(task.taskId);
    } else if (this.life.replicas.runsElsewhere(task)) {
      await this.life.replicas.answer(task, answers);
      await this.shown(task.taskId, Object.keys(answers));
    }
    return EMPTY_RESULT;
  }

  /**
   * Cancels the task (`tasks/cancel`): it is `cancelled` from now on and its call is aborted.
   * Acknowledged alike when the task had ended already.
   * @throws JsonRpcError -32021 without the extension, -32602 for an unknown task
   */
  async cancel(taskId: unknown, request: McpRequest): Promise<string> {
    const task = await this.owned(taskId, request, 'tasks/cancel');
    if (!TaskLife.isTerminal(task)) await this.life.cancel(task, this, request);
    return EMPTY_RESULT;
  }

  /**
   * Of `taskIds`, those the request's caller may follow (`subscriptions/listen` agrees to send
   * `notifications/tasks` for these): tasks that exist and are the caller's.
   * @throws JsonRpcError -32021 when the request did not declare the extension
   */
  async followable(taskIds: readonly string[], request: McpRequest): Promise<string[]> {
    if (!declaresTasks(request.session))
      throw missingTasksExtension('task notifications belong to the tasks extension');
    const owner = ownerOf(request);
    const tasks = await Promise.all(taskIds.map((taskId) => this.life.store.get(taskId)));
    return taskIds.filter((_taskId, index) => tasks[index] !== undefined && ownsTask(owner, tasks[index]));
  }

  /** Stores a new `working` task of the caller, and publishes it. */
  async create(request: McpRequest): Promise<StoredTask> {
    const task = await this.life.create(request, this.options.tasks.ttlMs);
    this.announce(task);
    return task;
  }

  /** The requests of the task's call to its client, reflected in the task's status. */
  inputsFor(task: StoredTask, request: McpRequest): TaskInputs {
    return new TaskInputs((outstanding) => this.awaitInput(task.taskId, outstanding, request));
  }

  /** A tool's own error (`isError`) is a completed call; `failed` is for JSON-RPC errors. */
  statusOf(_result: CallToolResult): 'completed' {
    return 'completed';
  }

  /** Publishes the change to the `subscriptions/listen` streams that follow the task. */
  announce(task: StoredTask): void {
    this.statusEvents.publish({ task: detailedTask(task), owner: task.owner });
  }

  backgroundReply(): ReplyChannel {
    return SILENT;
  }

  /** The task a request names, checked against the request's extension and principal. */
  private async owned(taskId: unknown, request: McpRequest, method: string): Promise<StoredTask> {
    if (!declaresTasks(request.session)) throw missingTasksExtension(`${method} belongs to the tasks extension`);
    const task = await this.life.owned(taskId, request);
    // Someone else's task is answered exactly like one that does not exist.
    if (!task) throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, `Unknown task: ${String(taskId)}`);
    return task;
  }

  /** The task waits on `outstanding` (`input_required`), or on nothing again (`working`). */
  private awaitInput(taskId: string, outstanding: TaskInputRequests, request: McpRequest): void {
    const waiting = Object.keys(outstanding).length > 0;
    this.life
      .change(
        taskId,
        (task) =>
          TaskLife.isTerminal(task)
            ? undefined
            : {
                ...task,
                status: waiting ? 'input_required' : 'working',
                statusMessage: waiting ? 'Waiting for the client to answer inputRequests' : undefined,
                inputRequests: waiting ? outstanding : undefined,
              },
        this,
        request,
      )
      .catch((error: unknown) =>
        this.logger.error(`task ${taskId} was not updated`, (error as Error)?.stack ?? String(error)),
      );
  }

  /**
   * Waits (a while) until the stored task no longer waits on `keys`: the replica running it took
   * the answers. An answer to no outstanding request is ignored there, as here.
   */
  private async shown(taskId: string, keys: readonly string[]): Promise<void> {
    const deadline = Date.now() + REMOTE_ANSWER_WAIT_MS;
    for (;;) {
      const task = await this.life.store.get(taskId);
      const waiting = task?.inputRequests ?? {};
      if (!task || TaskLife.isTerminal(task) || !keys.some((key) => key in waiting)) return;
      if (Date.now() >= deadline) return;
      await new Promise((resolve) => setTimeout(resolve, REMOTE_ANSWER_POLL_MS));
    }
  }
}
