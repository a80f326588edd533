import { Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { JsonRpcError, JsonRpcErrorCode } from '#libs/core';
import { ListenSubscriptions } from '../subscriptions/listen-subscriptions';
import { TaskExtensionRunner } from './task-extension.runner';
import { TaskStatusEvents } from './task-status.events';

/**
 * `notifications/tasks` on `subscriptions/listen` streams (tasks extension, 2026-07-28): serves
 * the filter field `taskIds` — the acknowledgement keeps the ids the caller may follow
 * (`TaskExtensionRunner.followable`; `-32021` without the extension) — and sends each status
 * change to the streams that agreed to its task and belong to its owner.
 */
@Injectable()
export class TaskNotifications implements OnModuleInit, OnApplicationShutdown {
  private readonly stops: (() => void)[] = [];

  constructor(
    private readonly subscriptions: ListenSubscriptions,
    private readonly runner: TaskExtensionRunner,
    private readonly statusEvents: TaskStatusEvents,
  ) {}

  onModuleInit(): void {
    this.stops.push(
      this.subscriptions.addTopic({
        field: 'taskIds',
        acknowledge: (requested, subscriber) => {
          if (!Array.isArray(requested) || !requested.every((id) => typeof id === 'string'))
            throw new JsonRpcError(
              JsonRpcErrorCode.INVALID_PARAMS,
              'subscriptions/listen: "notifications.taskIds" must be an array of task ids',
            );
          return this.runner.followable(requested as string[], subscriber.request);
        },
      }),
      this.statusEvents.subscribe(({ task, owner }) =>
        this.subscriptions.publish(
          'notifications/tasks',
          task,
          (subscription) =>
            subscription.principal.id === owner.principal &&
            (subscription.filter.taskIds as readonly string[] | undefined)?.includes(task.taskId) === true,
        ),
      ),
    );
  }

  /** After the drain (Nest runs `onModuleDestroy` before it): the calls in flight still need this. */
  onApplicationShutdown(): void {
    this.stops.splice(0).forEach((stop) => stop());
  }
}
