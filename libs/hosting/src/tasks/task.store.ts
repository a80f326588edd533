import { Inject, Injectable } from '@nestjs/common';
import type { CallToolResult, Task } from '@modelcontextprotocol/sdk/types.js';

/** A task as stored: the protocol's `Task`, who owns it, and its outcome once terminal. */
export interface StoredTask extends Task {
  /** The session that created it (`undefined` in stateless mode). */
  owner: string | undefined;
  /** Epoch ms after which the task and its result are forgotten. */
  expiresAt: number;
  result?: CallToolResult;
  error?: { code: number; message: string; data?: unknown };
}

/**
 * Where tasks live. The in-memory default serves one process; a shared implementation (e.g.
 * on Redis) lets any replica answer `tasks/get` and `tasks/result`.
 */
export interface McpTaskStore {
  save(task: StoredTask): Promise<void>;
  get(taskId: string): Promise<StoredTask | undefined>;
  /** Tasks of `owner`, oldest first, from `offset`. */
  list(owner: string | undefined, offset: number, limit: number): Promise<{ tasks: StoredTask[]; total: number }>;
}

/** Token of the task store; provide your own implementation under it to replace the default. */
export const MCP_TASK_STORE = Symbol('MCP:TASK_STORE');

/** Injects the task store. */
export const InjectTaskStore = () => Inject(MCP_TASK_STORE);

/** The embedded default: tasks in process memory, dropped when they expire. */
@Injectable()
export class InMemoryTaskStore implements McpTaskStore {
  private readonly tasks = new Map<string, StoredTask>();

  async save(task: StoredTask): Promise<void> {
    this.tasks.set(task.taskId, task);
  }

  async get(taskId: string): Promise<StoredTask | undefined> {
    const task = this.tasks.get(taskId);
    if (task && task.expiresAt <= Date.now()) {
      this.tasks.delete(taskId);
      return undefined;
    }
    return task;
  }

  async list(owner: string | undefined, offset: number, limit: number): Promise<{ tasks: StoredTask[]; total: number }> {
    const now = Date.now();
    const mine = [...this.tasks.values()].filter((task) => task.owner === owner && task.expiresAt > now);
    return { tasks: mine.slice(offset, offset + limit), total: mine.length };
  }
}
