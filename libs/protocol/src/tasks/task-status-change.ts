import type { McpTaskOwner } from './task.store';

/** A status change of a task of the tasks extension (2026-07-28). */
export interface TaskStatusChange {
  /**
   * The task as `tasks/get` shows it now (`DetailedTask`, without `resultType`): what a
   * `notifications/tasks` notification carries as its params.
   */
  readonly task: Readonly<Record<string, unknown>> & { readonly taskId: string; readonly status: string };
  /** Who the task belongs to: send the change only to a listener of the same principal. */
  readonly owner: McpTaskOwner;
}
