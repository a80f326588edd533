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
 */
@Injectable()
export class SessionStore implements OnModuleDestroy {
  private readonly sessions = new Map<string, McpSession>();
  /** The sessions of each owner key. */
  private readonly owners = new Map<string, Set<McpSession>>();
  private sweeper: NodeJS.Timeout | undefined;
  private readonly closeListeners = new Set<(session: McpSession) => void>();

  constructor(@InjectProtocolOptions() private readonly options: ProtocolOptions) {}

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
    this.sessions.set(session.id!, session);
    let own = this.owners.get(owner);
    if (!own) this.owners.set(owner, (own = new Set()));
    own.add(session);
    this.sweeper ??= setInterval(() => this.sweep(), Math.min(this.options.sessions.idleTtlMs / 2, 60_000)).unref();
    return session;
  }

  /** The live session with this id (and marks it used), or `undefined`. */
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

  /** Ends the sessions idle for longer than the TTL. */
  sweep(now = Date.now()): void {
    for (const [id, session] of this.sessions) {
      if (now - session.lastSeen > this.options.sessions.idleTtlMs && session.inFlight.size === 0)
        this.delete(id, 'session expired');
    }
  }

  closeAll(): void {
    for (const id of [...this.sessions.keys()]) this.delete(id, 'host shutting down');
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
  }
}
