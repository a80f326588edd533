import { Inject } from '@nestjs/common';
import type { StoredTask } from './task.store';
import type { TaskStatusChange } from './task-status-change';

/**
 * What the task runners need of the other replicas: the name to record on a task started here,
 * a `tasks/cancel` or `tasks/update` carried to the replica running the task's call, and status
 * changes told to every replica (for its `notifications/tasks` streams). One replica runs every
 * task itself (`LocalTaskReplicas`: no name, nothing to carry); with the `cluster` option the
 * cluster's carries them.
 */
export interface TaskReplicas {
  /** This replica, to record on a task it starts; `undefined` when there are no others. */
  readonly replica: string | undefined;
  /** Whether the call of `task` runs on another replica. */
  runsElsewhere(task: StoredTask): boolean;
  /** Tells the replica running `task` to abort its call (the task is `cancelled` in the store already). */
  cancel(task: StoredTask): Promise<void>;
  /** Calls `handler` with each task another replica asks this one to cancel; returns how to stop. */
  onCancel(handler: (taskId: string) => void): () => void;
  /** Hands the client's answers (`tasks/update`) to the replica running `task`. */
  answer(task: StoredTask, responses: Readonly<Record<string, unknown>>): Promise<void>;
  /** Calls `handler` with the answers another replica received for a task; returns how to stop. */
  onAnswers(handler: (taskId: string, responses: Record<string, unknown>) => void): () => void;
  /** Tells the other replicas of a status change (best effort: `tasks/get` reads the store). */
  statusChanged(change: TaskStatusChange): void;
  /** Calls `handler` with the status changes of tasks other replicas run; returns how to stop. */
  onStatus(handler: (change: TaskStatusChange) => void): () => void;
}

/** Token of the `TaskReplicas` (the hosting module provides the one its options ask for). */
export const MCP_TASK_REPLICAS = Symbol('MCP:TASK_REPLICAS');

/** Injects the `TaskReplicas`. */
export const InjectTaskReplicas = () => Inject(MCP_TASK_REPLICAS);
