import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { LATEST_PROTOCOL_VERSION } from '#libs/core';
import { MCP_RESOLVED_OPTIONS, type ResolvedMcpOptions } from '../options/resolved-options';
import { McpSession } from './mcp-session';

/**
 * Live stateful sessions, in process memory: ended after `sessionIdleTtlMs` without use,
 * at most `maxSessions` at once.
 */
@Injectable()
export class SessionStore implements OnModuleDestroy {
  private readonly sessions = new Map<string, McpSession>();
  private sweeper: NodeJS.Timeout | undefined;
  private readonly closeListeners = new Set<(session: McpSession) => void>();

  constructor(@Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions) {}

  get size(): number {
    return this.sessions.size;
  }

  get isFull(): boolean {
    return this.sessions.size >= this.options.maxSessions;
  }

  /** Opens a session for `principalId`; only that principal may use it. */
  create(principalId: string): McpSession {
    const session = new McpSession(randomUUID(), LATEST_PROTOCOL_VERSION);
    session.principalId = principalId;
    this.sessions.set(session.id!, session);
    this.sweeper ??= setInterval(() => this.sweep(), Math.min(this.options.sessionIdleTtlMs / 2, 60_000)).unref();
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
      if (now - session.lastSeen > this.options.sessionIdleTtlMs && session.inFlight.size === 0) this.delete(id, 'session expired');
    }
  }

  closeAll(): void {
    for (const id of [...this.sessions.keys()]) this.delete(id, 'host shutting down');
  }

  onModuleDestroy(): void {
    clearInterval(this.sweeper);
  }
}
