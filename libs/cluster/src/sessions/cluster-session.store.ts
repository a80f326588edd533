import { applyRecord, McpSession, SessionStore, type ProtocolOptions, type SessionRecord } from '#libs/protocol';
import type { McpCluster } from '../replicas/mcp-cluster';
import { SharedSessions } from './shared-sessions';

/** The messages the replicas send each other about sessions. */
const CHANGED = 'session-changed';
const ENDED = 'session-ended';

/**
 * The session store of a cluster (the `cluster` option): a session belongs to every replica. Its
 * state is in the shared store (`SharedSessions`), read on each request (`resolve`) and written
 * back when a request changed it (`commit`), the other replicas told with the new record; each
 * replica keeps a copy for the calls, streams and requests to the client it has itself. A session
 * ended on one replica (`end`) ends on all; a copy idle here ends once the shared store no longer
 * has the session. The ids of the requests a copy sends its client name this replica, so that an
 * answer reaching another replica is passed on to it.
 */
export class ClusterSessionStore extends SessionStore {
  private readonly shared: SharedSessions;

  constructor(
    options: ProtocolOptions,
    private readonly cluster: McpCluster,
  ) {
    super(options);
    this.shared = new SharedSessions(cluster, options.sessions.idleTtlMs);
    // Another replica changed or ended a session this one has a copy of. The change comes with
    // the message and is applied at once: a message that follows it (a resource update for a
    // subscription just made) must find it in place.
    cluster.on(CHANGED, ({ record, from }) => {
      const changed = record as SessionRecord | undefined;
      const session = changed && from !== cluster.replica ? this.held(changed.id) : undefined;
      if (session && changed) {
        applyRecord(session, changed);
        this.shared.loaded(session, changed);
      }
    });
    cluster.on(ENDED, ({ session, reason }) => {
      if (typeof session === 'string') this.delete(session, typeof reason === 'string' ? reason : 'session ended');
    });
  }

  /** The sessions the shared store has; `null` while it cannot be reached. */
  override async countOnEveryReplica(): Promise<number | null> {
    return this.shared.live().then(
      (ids) => ids.length,
      () => null,
    );
  }

  protected override adopt(session: McpSession, owner: string): void {
    session.clientRequests.idPrefix = this.cluster.replica;
    super.adopt(session, owner);
  }

  /** The session as the shared store has it (this replica's copy brought up to date), or `undefined`. */
  override async resolve(id: string): Promise<McpSession | undefined> {
    const record = await this.shared.load(id);
    let session = this.held(id);
    if (!record) {
      if (session) this.delete(id, 'session ended');
      return undefined;
    }
    if (!session) {
      session = new McpSession(id, record.protocolVersion);
      session.owner = record.owner ?? record.principalId ?? '';
      this.adopt(session, session.owner);
    }
    applyRecord(session, record);
    this.shared.loaded(session, record);
    session.lastSeen = Date.now();
    return session;
  }

  /** Writes `session` when it changed (else moves its expiry when due), and tells the other replicas. */
  override commit(session: McpSession): Promise<void> | undefined {
    if (session.id === undefined || !this.held(session.id)) return undefined;
    return this.write(session);
  }

  override async end(id: string, reason: string): Promise<void> {
    await this.shared.remove(id);
    await this.cluster.broadcast({ type: ENDED, session: id, reason });
    this.delete(id, reason);
  }

  protected override expireIdle(id: string, session: McpSession): void {
    this.shared.load(id).then(
      (record) => (record ? (session.lastSeen = Date.now()) : this.delete(id, 'session expired')),
      () => undefined,
    );
  }

  private async write(session: McpSession): Promise<void> {
    const record = await this.shared.save(session);
    if (record) await this.cluster.broadcast({ type: CHANGED, session: record.id, record });
  }
}
