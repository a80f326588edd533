import { Injectable, Logger, Optional, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { notification } from '../wire/json-rpc';
import { InjectTaskReplicas, type TaskReplicas } from './task-replicas';
import { LocalTaskReplicas } from './local-task-replicas';
import type { TaskStatusChange } from './task-status-change';

/** Told every status change; see `TaskStatusEvents.subscribe`. */
export type TaskStatusListener = (change: TaskStatusChange) => void;

/**
 * Status changes of the tasks this process runs (tasks extension) — and, with the `cluster` option,
 * of those the other replicas run: created, input required, working again, completed, failed,
 * cancelled. The hook for `notifications/tasks` on a
 * `subscriptions/listen` stream: the stream agrees to the task ids its client asked for that
 * `TaskExtensionRunner.followable` returns (it also refuses a client without the extension), then
 * subscribes, keeps the changes of those ids whose owner is the stream's principal, and sends
 * `taskStatusNotification`. Polling with `tasks/get` needs none of this.
 * @example
 * ```ts
 * const taskIds = new Set(await tasks.followable(requested, scope)); // for the acknowledgement
 * const stop = statusEvents.subscribe((change) => {
 *   if (taskIds.has(change.task.taskId) && change.owner.principal === principal.id)
 *     send(taskStatusNotification(change));
 * });
 * // when the stream ends
 * stop();
 * ```
 */
@Injectable()
export class TaskStatusEvents implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('McpTasks');
  private readonly listeners = new Set<TaskStatusListener>();
  private stopRelay: (() => void) | undefined;

  /** @param replicas with the `cluster` option, the changes of tasks other replicas run come here too */
  constructor(@Optional() @InjectTaskReplicas() private readonly replicas: TaskReplicas = new LocalTaskReplicas()) {}

  onModuleInit(): void {
    this.stopRelay = this.replicas.onStatus((change) => this.deliver(change));
  }

  /** After the drain (Nest runs `onModuleDestroy` before it): the calls in flight still need this. */
  onApplicationShutdown(): void {
    this.stopRelay?.();
  }

  /** Calls `listener` with every change from now on; returns how to stop. */
  subscribe(listener: TaskStatusListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** @internal told by the task runner; a listener that throws is logged and does not stop the others. */
  publish(change: TaskStatusChange): void {
    this.deliver(change);
    this.replicas.statusChanged(change);
  }

  private deliver(change: TaskStatusChange): void {
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        this.logger.error('A task status listener failed', (error as Error)?.stack ?? String(error));
      }
    }
  }
}

/** The `notifications/tasks` message of a change, serialized. */
export function taskStatusNotification(change: TaskStatusChange): string {
  return notification('notifications/tasks', change.task as Record<string, unknown>);
}
