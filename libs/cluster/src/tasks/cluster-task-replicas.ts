import { Logger } from '@nestjs/common';
import type { StoredTask, TaskReplicas, TaskStatusChange } from '#libs/protocol';
import type { McpCluster } from '../replicas/mcp-cluster';

/** The messages the replicas send each other about tasks. */
const CANCEL = 'task-cancel';
const ANSWERS = 'task-answers';
const STATUS = 'task-status';

/**
 * The other replicas of a cluster, for the task runners (the `cluster` option): this replica's
 * name is recorded on the tasks it starts, a `tasks/cancel` or `tasks/update` is carried to the
 * replica running the task's call, and status changes are told to every replica (for its
 * `notifications/tasks` streams), by broadcast.
 */
export class ClusterTaskReplicas implements TaskReplicas {
  private readonly logger = new Logger('McpTasks');

  constructor(private readonly cluster: McpCluster) {}

  get replica(): string {
    return this.cluster.replica;
  }

  runsElsewhere(task: StoredTask): boolean {
    return task.replica !== undefined && task.replica !== this.replica;
  }

  /** Tells the replica running `task` to abort its call (the task is `cancelled` in the store already). */
  async cancel(task: StoredTask): Promise<void> {
    if (this.runsElsewhere(task)) await this.cluster.broadcast({ type: CANCEL, taskId: task.taskId });
  }

  /** Calls `handler` with each task another replica asks this one to cancel; returns how to stop. */
  onCancel(handler: (taskId: string) => void): () => void {
    return this.listen(CANCEL, (message) => typeof message.taskId === 'string' && handler(message.taskId));
  }

  /** Hands the client's answers (`tasks/update`) to the replica running `task`. */
  async answer(task: StoredTask, responses: Readonly<Record<string, unknown>>): Promise<void> {
    if (this.runsElsewhere(task)) await this.cluster.broadcast({ type: ANSWERS, taskId: task.taskId, responses });
  }

  /** Calls `handler` with the answers another replica received for a task; returns how to stop. */
  onAnswers(handler: (taskId: string, responses: Record<string, unknown>) => void): () => void {
    return this.listen(ANSWERS, (message) => {
      const { taskId, responses } = message;
      if (typeof taskId === 'string' && typeof responses === 'object' && responses !== null)
        handler(taskId, responses as Record<string, unknown>);
    });
  }

  /** Tells the other replicas of a status change (best effort: `tasks/get` reads the store). */
  statusChanged(change: TaskStatusChange): void {
    this.cluster
      .broadcast({ type: STATUS, change })
      .catch((error: Error) =>
        this.logger.warn(
          `task ${change.task.taskId}: the other replicas were not told of its status: ${error.message}`,
        ),
      );
  }

  /** Calls `handler` with the status changes of tasks other replicas run; returns how to stop. */
  onStatus(handler: (change: TaskStatusChange) => void): () => void {
    return this.listen(STATUS, (message) => handler(message.change as TaskStatusChange));
  }

  /** Listens to messages of `type` from the other replicas (this one handles its own in process). */
  private listen(type: string, handler: (message: Record<string, unknown>) => void): () => void {
    return this.cluster.on(type, (message) => {
      if (message.from !== this.replica) handler(message);
    });
  }
}
