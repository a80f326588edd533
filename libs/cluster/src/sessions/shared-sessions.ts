import { recordOf, type McpSession, type SessionRecord } from '#libs/protocol';
import type { McpCluster } from '../replicas/mcp-cluster';

/** How often, at most, a replica moves a session's expiry when the session did not change. */
const TOUCH_EVERY_MS = 5_000;

/**
 * Sessions in the cluster's shared store: one key per session (`session:<id>`, expiring after
 * the idle TTL, moved on use) and an index of the live ones (the dashboard's cluster-wide count).
 * A replica writes a session back only when it changed, and otherwise moves its expiry at most
 * every few seconds: the common request costs one read.
 */
export class SharedSessions {
  /** What each session looked like when last written, to write only changes. */
  private readonly written = new WeakMap<McpSession, string>();
  private readonly touched = new WeakMap<McpSession, number>();

  constructor(
    private readonly cluster: McpCluster,
    private readonly idleTtlMs: number,
  ) {}

  private key(id: string): string {
    return this.cluster.key('session', id);
  }

  load(id: string): Promise<SessionRecord | undefined> {
    return this.cluster.backplane.get<SessionRecord>(this.key(id));
  }

  /**
   * Writes `session` when it changed since this replica last wrote it (and resolves with what it
   * wrote: the other replicas should hear of it), else moves its expiry when that is due.
   */
  async save(session: McpSession, now = Date.now()): Promise<SessionRecord | undefined> {
    const record = recordOf(session);
    const text = JSON.stringify(record);
    const { backplane } = this.cluster;
    if (this.written.get(session) !== text) {
      await backplane.set(this.key(record.id), record, this.idleTtlMs);
      await backplane.indexAdd(this.cluster.key('sessions'), record.id, now + this.idleTtlMs);
      this.written.set(session, text);
      this.touched.set(session, now);
      return record;
    }
    if (now - (this.touched.get(session) ?? 0) >= TOUCH_EVERY_MS) {
      this.touched.set(session, now);
      await backplane.expire(this.key(record.id), this.idleTtlMs);
      await backplane.indexAdd(this.cluster.key('sessions'), record.id, now + this.idleTtlMs);
    }
    return undefined;
  }

  /** Notes that `session` now matches `record` (read from the store): no need to write it back. */
  loaded(session: McpSession, record: SessionRecord): void {
    this.written.set(session, JSON.stringify(record));
  }

  async remove(id: string): Promise<void> {
    await this.cluster.backplane.delete(this.key(id));
    await this.cluster.backplane.indexRemove(this.cluster.key('sessions'), id);
  }

  /** The ids of the sessions live on any replica. */
  live(now = Date.now()): Promise<string[]> {
    return this.cluster.backplane.indexMembers(this.cluster.key('sessions'), now);
  }
}
