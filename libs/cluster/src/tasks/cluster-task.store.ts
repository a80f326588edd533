import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { JsonRpcError, JsonRpcErrorCode } from '#libs/core';
import { ownsTask, type McpTaskOwner, type McpTaskStore, type StoredTask } from '#libs/protocol';
import { ClusterMessages } from '../replicas/cluster.messages';
import type { McpCluster } from '../replicas/mcp-cluster';
import { TaskMessages } from './task.messages';

const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);

/**
 * The task store of a cluster (the `cluster` option; the default then): tasks on the backplane,
 * so that any replica answers `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel`. A task
 * is kept under its key for its TTL and indexed under its owner for `tasks/list`.
 *
 * How a task ended is written once, beside it (`setIfAbsent`): of two replicas ending it at once
 * (`tasks/cancel` on one, the call's end on the other) the first wins, and no later update of the
 * running call hides it. A task whose replica stopped (its heartbeat gone: `McpCluster.isAlive`)
 * while `working` or `input_required` is failed, the first time any replica reads it.
 *
 * Fails closed: while the backplane cannot be reached every method rejects with a JSON-RPC error
 * that says so.
 */
@Injectable()
export class ClusterTaskStore implements McpTaskStore {
  constructor(private readonly cluster: McpCluster) {}

  async save(task: StoredTask): Promise<void> {
    const ttlMs = Math.max(1, task.expiresAt - Date.now());
    await this.reach(async (backplane) => {
      if (!TERMINAL.has(task.status)) {
        await backplane.set(this.liveKey(task.taskId), task, ttlMs);
        await backplane.indexAdd(this.ownerKey(task.owner), task.taskId, task.expiresAt);
      } else if (await backplane.setIfAbsent(this.endKey(task.taskId), task, ttlMs)) {
        // Ended: only the ending is read from now on.
        await backplane.delete(this.liveKey(task.taskId));
      }
    });
  }

  async get(taskId: string): Promise<StoredTask | undefined> {
    return this.read(taskId, new Map());
  }

  async list(owner: McpTaskOwner, offset: number, limit: number): Promise<{ tasks: StoredTask[]; total: number }> {
    const ids = await this.reach((backplane) => backplane.indexMembers(this.ownerKey(owner), Date.now()));
    // One heartbeat read per replica, however many of its tasks are listed.
    const alive = new Map<string, Promise<boolean>>();
    const found = await Promise.all(ids.map((taskId) => this.read(taskId, alive)));
    const mine = found
      .filter((task): task is StoredTask => task !== undefined && ownsTask(owner, task))
      .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
    return { tasks: mine.slice(offset, offset + limit), total: mine.length };
  }

  /** The task (its ending once it ended), failed first if the replica running it stopped. */
  private async read(taskId: string, alive: Map<string, Promise<boolean>>): Promise<StoredTask | undefined> {
    const [ended, live] = await this.reach((backplane) =>
      Promise.all([backplane.get<StoredTask>(this.endKey(taskId)), backplane.get<StoredTask>(this.liveKey(taskId))]),
    );
    const task = ended ?? live;
    if (!task || task.expiresAt <= Date.now()) return undefined;
    if (ended || !task.replica || task.replica === this.cluster.replica) return task;
    let isAlive = alive.get(task.replica);
    if (!isAlive) alive.set(task.replica, (isAlive = this.reach(() => this.cluster.isAlive(task.replica!))));
    return (await isAlive) ? task : this.failOrphan(task);
  }

  /** Fails a task whose replica stopped; another replica may have ended it first, then its ending stands. */
  private async failOrphan(task: StoredTask): Promise<StoredTask> {
    const message = TaskMessages.replicaStopped(task.replica!);
    const failed: StoredTask = {
      ...task,
      status: 'failed',
      statusMessage: message,
      error: { code: JsonRpcErrorCode.INTERNAL_ERROR, message },
      inputRequests: undefined,
      lastUpdatedAt: new Date().toISOString(),
    };
    await this.save(failed);
    return (await this.reach((backplane) => backplane.get<StoredTask>(this.endKey(task.taskId)))) ?? failed;
  }

  private liveKey(taskId: string): string {
    return this.cluster.key('task', taskId);
  }

  private endKey(taskId: string): string {
    return this.cluster.key('task', taskId, 'end');
  }

  /** The index of an owner's tasks; hashed, as a principal's id may hold any character. */
  private ownerKey(owner: McpTaskOwner): string {
    const digest = createHash('sha256')
      .update(JSON.stringify([owner.principal, owner.session ?? null]))
      .digest('base64url');
    return this.cluster.key('tasks', digest);
  }

  /** Runs `work` on the backplane; its failure becomes a JSON-RPC error a client understands. */
  private async reach<T>(work: (backplane: McpCluster['backplane']) => Promise<T>): Promise<T> {
    try {
      return await work(this.cluster.backplane);
    } catch (error) {
      if (error instanceof JsonRpcError) throw error;
      throw new JsonRpcError(JsonRpcErrorCode.INTERNAL_ERROR, ClusterMessages.unavailable('tasks'));
    }
  }
}
