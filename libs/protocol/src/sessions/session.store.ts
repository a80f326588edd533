import { randomUUID } from 'node:crypto';
import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { LATEST_PROTOCOL_VERSION } from '#libs/core';
import { InjectProtocolOptions, type ProtocolOptions } from '../options/protocol.options';
import { McpSession } from './mcp-session';

/** Why a new session cannot be opened now. */
export type SessionRefusal =
  { reason: 'full'; limit: number } | { reason: 'owner_full'; limit: number; retryAfterSec: number };

/**
 * Live stateful sessions, in process memory: ended after `sessionIdleTtlMs` without use, at most
 * `maxSessions` at once and `maxSessionsPerPrincipal` per owner (a principal, or a client address
 * when authentication is off), so that one caller cannot take every session there is.
 *
 * This is the store of one replica. With the `cluster` option the host uses the cluster's
 * (a subclass), where a session belongs to every replica: its state is in the shared store, read
 * on each request (`resolve`) and written back when a request changed it (`commit`); each replica
 * keeps a copy for the calls, streams and requests to the client it has itself, and a session
 * ended on one replica (`end`) ends on all. Its transports call the same methods either way.
 */
@Injectable()
export class SessionStore implements OnModuleDestroy {
  private readonly sessions = new Map<string, McpSession>();
  /** The sessions of each owner key. */
  private readonly owners = new Map<string, Set<McpSession>>();
  private sweeper: NodeJS.Timeout | undefined;
  private readonly closeListeners = new Set<(session: McpSession) => void>();

  constructor(@InjectProtocolOptions() protected readonly options: ProtocolOptions) {}

  /**
   * How many sessions are live on every replica of the host; `null` when that is not known: one
   * replica (its own count is `liveCount`), or a shared store that cannot be reached.
   */
  async countOnEveryReplica(): Promise<number | null> {
    return null;
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

  /** Keeps `session` (opened here, or this replica's copy of one opened elsewhere) under `owner`. */
  protected adopt(session: McpSession, owner: string): void {
    this.sessions.set(session.id!, session);
    let own = this.owners.get(owner);
    if (!own) this.owners.set(owner, (own = new Set()));
    own.add(session);
    this.sweeper ??= setInterval(() => this.sweep(), Math.min(this.options.sessions.idleTtlMs / 2, 60_000)).unref();
  }

  /**
   * The session with this id for a request, marked used; `undefined` when there is none (or it
   * ended). A store shared by replicas reads it from the shared store each time: another replica
   * may have changed or ended it since.
   * @throws when the shared store cannot be reached (the caller fails closed)
   */
  async resolve(id: string): Promise<McpSession | undefined> {
    return this.get(id);
  }

  /**
   * Keeps what a request changed of `session` (initialize, log level, subscriptions) where the
   * next request finds it, before the request is answered. In process memory it is there already:
   * `undefined`, nothing to wait for. A store shared by replicas writes it (when it changed) and
   * tells the other replicas; the promise rejects when the shared store cannot be reached.
   */
  commit(_session: McpSession): Promise<void> | undefined {
    return undefined;
  }

  /**
   * Ends a session (the client's DELETE): here, and on every replica when they share it.
   * @throws when the shared store cannot be reached (the session is then not ended)
   */
  async end(id: string, reason: string): Promise<void> {
    this.delete(id, reason);
  }

  /** This replica's copy of the session with this id (and marks it used), or `undefined`. */
  get(id: string): McpSession | undefined {
    const session = this.sessions.get(id);
    if (session) session.lastSeen = Date.now();
    return session;
  }

  /** This replica's copy of the session with this id, as it is (not marked used). */
  protected held(id: string): McpSession | undefined {
    return this.sessions.get(id);
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

  /** Ends the sessions idle for longer than the TTL (see `expireIdle`). */
  sweep(now = Date.now()): void {
    for (const [id, session] of this.sessions) {
      if (now - session.lastSeen <= this.options.sessions.idleTtlMs || session.inFlight.size > 0) continue;
      this.expireIdle(id, session);
    }
  }

  /**
   * Ends a session idle here for longer than the TTL. (A store shared by replicas ends its copy
   * only once the shared store no longer has the session: it may be in use elsewhere.)
   */
  protected expireIdle(id: string, _session: McpSession): void {
    this.delete(id, 'session expired');
  }

  /** Closes this replica's sessions (at shutdown); sessions shared by replicas live on at the others. */
  closeAll(): void {
    for (const id of [...this.sessions.keys()]) this.delete(id, 'host shutting down');
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
  }
}
