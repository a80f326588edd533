import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import type { CallToolResult, Task } from '@modelcontextprotocol/sdk/types.js';
import type { TaskInputRequests } from './task-inputs';

/**
 * Who a task belongs to: the principal that created it and, in stateful mode, its session.
 * Anyone else gets exactly the answer for an unknown task.
 */
export interface McpTaskOwner {
  principal: string;
  /** The session that created it (`undefined` in stateless mode: the principal alone owns it). */
  session: string | undefined;
}

/** A task as stored: the protocol's `Task`, who owns it, and its outcome once terminal. */
export interface StoredTask extends Task {
  owner: McpTaskOwner;
  /** Epoch ms after which the task and its result are forgotten. */
  expiresAt: number;
  result?: CallToolResult;
  error?: { code: number; message: string; data?: unknown };
  /** What the task waits on while `input_required` (tasks extension), by key. */
  inputRequests?: TaskInputRequests;
  /**
   * The replica running the task's call (with the `cluster` option): the others send it
   * `tasks/cancel`, and fail the task if that replica stops before it ends.
   */
  replica?: string;
}

/**
 * Where tasks live. The in-memory default serves one process; with the `cluster` option the
 * default is `ClusterTaskStore` (on the backplane), so that any replica answers `tasks/get`,
 * `tasks/result`, `tasks/list` and `tasks/cancel`.
 */
export interface McpTaskStore {
  save(task: StoredTask): Promise<void>;
  /** The task, unless it expired. Ownership is checked by the caller. */
  get(taskId: string): Promise<StoredTask | undefined>;
  /** Tasks of `owner` (same principal and session), oldest first, from `offset`. */
  list(owner: McpTaskOwner, offset: number, limit: number): Promise<{ tasks: StoredTask[]; total: number }>;
}

/** Whether `task` belongs to `owner`: the same principal, and the same session (or none, stateless). */
export function ownsTask(owner: McpTaskOwner, task: StoredTask): boolean {
  return task.owner.principal === owner.principal && task.owner.session === owner.session;
}

/** Token of the task store; provide your own implementation under it to replace the default. */
export const MCP_TASK_STORE = Symbol('MCP:TASK_STORE');

/** Injects the task store. */
export const InjectTaskStore = () => Inject(MCP_TASK_STORE);

/** How often expired tasks are swept from memory. */
const SWEEP_INTERVAL_MS = 30_000;

/**
 * The embedded default: tasks in process memory. Expired tasks are dropped when touched and
 * swept on a timer, so a burst of tasks nobody reads again does not hold memory until the end.
 */
@Injectable()
export class InMemoryTaskStore implements McpTaskStore, OnModuleDestroy {
  private readonly tasks = new Map<string, StoredTask>();
  private sweeper: NodeJS.Timeout | undefined;

  /** Tasks held, expired ones not yet swept included. */
  get size(): number {
    return this.tasks.size;
  }

  async save(task: StoredTask): Promise<void> {
    this.tasks.set(task.taskId, task);
    this.sweeper ??= setInterval(() => this.sweep(), SWEEP_INTERVAL_MS).unref();
  }

  async get(taskId: string): Promise<StoredTask | undefined> {
    const task = this.tasks.get(taskId);
    if (task && task.expiresAt <= Date.now()) {
      this.tasks.delete(taskId);
      return undefined;
    }
    return task;
  }

  async list(owner: McpTaskOwner, offset: number, limit: number): Promise<{ tasks: StoredTask[]; total: number }> {
    const now = Date.now();
    const mine = [...this.tasks.values()].filter((task) => ownsTask(owner, task) && task.expiresAt > now);
    return { tasks: mine.slice(offset, offset + limit), total: mine.length };
  }

  /** Drops every expired task; stops the timer when none are left. */
  sweep(now = Date.now()): void {
    for (const [taskId, task] of this.tasks) if (task.expiresAt <= now) this.tasks.delete(taskId);
    if (this.tasks.size === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}
