import { randomUUID } from 'node:crypto';
import { Injectable, Optional, type OnModuleDestroy } from '@nestjs/common';
import { LATEST_PROTOCOL_VERSION } from '#libs/core';
import { McpCluster } from '#libs/cluster';
import { InjectProtocolOptions, type ProtocolOptions } from '../options/protocol.options';
import { McpSession } from './mcp-session';
import { applyRecord, type SessionRecord } from './session-record';
import { SharedSessions } from './shared-sessions';

/** Why a new session cannot be opened now. */
export type SessionRefusal =
  { reason: 'full'; limit: number } | { reason: 'owner_full'; limit: number; retryAfterSec: number };

/**
 * Live stateful sessions, in process memory: ended after `sessionIdleTtlMs` without use, at most
 * `maxSessions` at once and `maxSessionsPerPrincipal` per owner (a principal, or a client address
 * when authentication is off), so that one caller cannot take every session there is.
 *
 * With a cluster backplane (the `cluster` option) a session belongs to every replica: its state is
 * in the shared store, read on each request (`resolve`) and written back when a request changed
 * it (`persist`); each replica keeps a copy for the calls, streams and requests to the client it
 * has itself. A session ended on one replica (`end`) ends on all.
 */
@Injectable()
export class SessionStore implements OnModuleDestroy {
  private readonly sessions = new Map<string, McpSession>();
  /** The sessions of each owner key. */
  private readonly owners = new Map<string, Set<McpSession>>();
  private sweeper: NodeJS.Timeout | undefined;
  private readonly closeListeners = new Set<(session: McpSession) => void>();
  /** The shared store, when replicas share sessions. */
  private readonly shared: SharedSessions | undefined;

  constructor(
    @InjectProtocolOptions() private readonly options: ProtocolOptions,
    @Optional() private readonly cluster?: McpCluster,
  ) {
    this.shared = cluster?.enabled ? new SharedSessions(cluster, options.sessions.idleTtlMs) : undefined;
    if (this.shared && cluster) {
      // Another replica changed or ended a session this one has a copy of. The change comes
      // with the message and is applied at once: a message that follows it (a resource update
      // for a subscription just made) must find it in place.
      cluster.on('session-changed', ({ record, from }) => {
        const changed = record as SessionRecord | undefined;
        const session = changed && from !== cluster.replica ? this.sessions.get(changed.id) : undefined;
        if (session && changed) {
          applyRecord(session, changed);
          this.shared?.loaded(session, changed);
        }
      });
      cluster.on('session-ended', ({ session, reason }) => {
        if (typeof session === 'string') this.delete(session, typeof reason === 'string' ? reason : 'session ended');
      });
    }
  }

  /** Whether sessions are shared with other replicas (a cluster backplane is configured). */
  get clustered(): boolean {
    return this.shared !== undefined;
  }

  /** The ids of the sessions live on any replica (this one's alone without a cluster). */
  async clusterSessionIds(): Promise<string[]> {
    return this.shared ? this.shared.live() : [...this.sessions.keys()];
  }

  /** The session of a transport with one client for the life of the process (stdio), when there is one. */
  private local: McpSession | undefined;

  get size(): number {
    return this.sessions.size;
  }

  /** Live sessions of every transport: the HTTP ones and the stdio session. */
  get liveCount(): number {
    return this.sessions.size + (this.local ? 1 : 0);
  }

  /** Every live session, the stdio one included (for notifications that belong to no request, and the dashboard). */
  *live(): IterableIterator<McpSession> {
    yield* this.sessions.values();
    if (this.local) yield this.local;
  }

  /** Whether `session` is the stdio session. */
  isLocal(session: McpSession): boolean {
    return session === this.local;
  }

  /**
   * Registers the session of a transport that serves one client for the life of the process
   * (stdio): it is not subject to the limits and expiry of HTTP sessions. Returns how to remove it.
   */
  attachLocal(session: McpSession): () => void {
    this.local = session;
    return () => {
      if (this.local === session) this.local = undefined;
    };
  }

  /** Whether `owner` may open one more session; the refusal says which limit holds. */
  refusal(owner: string, now = Date.now()): SessionRefusal | undefined {
    if (this.sessions.size >= this.options.sessions.max) return { reason: 'full', limit: this.options.sessions.max };
    const own = this.owners.get(owner);
    if (!own || own.size < this.options.sessions.maxPerPrincipal) return undefined;
    // The owner's least recently used session is the first to expire.
    let oldest = now;
    for (const session of own) oldest = Math.min(oldest, session.lastSeen);
    const retryAfterSec = Math.max(1, Math.ceil((oldest + this.options.sessions.idleTtlMs - now) / 1000));
    return { reason: 'owner_full', limit: this.options.sessions.maxPerPrincipal, retryAfterSec };
  }

  /**
   * Opens a session for `principalId`; only that principal may use it.
   * @param owner what the per-principal limit counts by (the principal, or the address when unauthenticated)
   */
  create(principalId: string, owner = principalId): McpSession {
    const session = new McpSession(randomUUID(), LATEST_PROTOCOL_VERSION);
    session.principalId = principalId;
    session.owner = owner;
    this.adopt(session, owner);
    return session;
  }

  private adopt(session: McpSession, owner: string): void {
    if (this.cluster?.enabled) session.clientRequests.idPrefix = this.cluster.replica;
    this.sessions.set(session.id!, session);
    let own = this.owners.get(owner);
    if (!own) this.owners.set(owner, (own = new Set()));
    own.add(session);
    this.sweeper ??= setInterval(() => this.sweep(), Math.min(this.options.sessions.idleTtlMs / 2, 60_000)).unref();
  }

  /**
   * The session with this id for a request, marked used; `undefined` when there is none (or it
   * ended). With replicas sharing sessions it is read from the shared store each time: another
   * replica may have changed or ended it since.
   * @throws when the shared store cannot be reached (the caller fails closed)
   */
  async resolve(id: string): Promise<McpSession | undefined> {
    if (!this.shared) return this.get(id);
    const record = await this.shared.load(id);
    let session = this.sessions.get(id);
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

  /**
   * Writes what a request changed of `session` to the shared store, and tells the other
   * replicas (nothing to do without a cluster, or when nothing changed).
   * @throws when the shared store cannot be reached
   */
  async persist(session: McpSession): Promise<void> {
    if (!this.shared || !this.cluster || session.id === undefined || !this.sessions.has(session.id)) return;
    if (await this.shared.save(session)) await this.cluster.broadcast({ type: 'session-changed', session: session.id });
  }

  /**
   * Ends a session on every replica (the client's DELETE).
   * @throws when the shared store cannot be reached (the session is then not ended)
   */
  async end(id: string, reason: string): Promise<void> {
    if (this.shared && this.cluster) {
      await this.shared.remove(id);
      await this.cluster.broadcast({ type: 'session-ended', session: id, reason });
    }
    this.delete(id, reason);
  }

  /** This replica's copy of the session with this id (and marks it used), or `undefined`. */
  get(id: string): McpSession | undefined {
    const session = this.sessions.get(id);
    if (session) session.lastSeen = Date.now();
    return session;
  }

  all(): IterableIterator<McpSession> {
    return this.sessions.values();
  }

  delete(id: string, reason = 'session ended'): boolean {
    const session = this.sessions.get(id);
    if (!session) return false;
    this.sessions.delete(id);
    const own = this.owners.get(session.owner!);
    own?.delete(session);
    if (own?.size === 0) this.owners.delete(session.owner!);
    session.close(reason);
    for (const listener of this.closeListeners) listener(session);
    return true;
  }

  /** Calls `listener` whenever a session ends (deleted, expired or closed at shutdown). */
  onClose(listener: (session: McpSession) => void): void {
    this.closeListeners.add(listener);
  }

  /**
   * Ends the sessions idle for longer than the TTL. With a cluster, a copy idle here may be in
   * use on other replicas: it ends only once the shared store no longer has the session.
   */
  sweep(now = Date.now()): void {
    for (const [id, session] of this.sessions) {
      if (now - session.lastSeen <= this.options.sessions.idleTtlMs || session.inFlight.size > 0) continue;
      if (!this.shared) this.delete(id, 'session expired');
      else
        this.shared.load(id).then(
          (record) => (record ? (session.lastSeen = Date.now()) : this.delete(id, 'session expired')),
          () => undefined,
        );
    }
  }

  /** Closes this replica's sessions (at shutdown); with a cluster they live on at the other replicas. */
  closeAll(): void {
    for (const id of [...this.sessions.keys()]) this.delete(id, 'host shutting down');
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
  }
}
