import { Injectable, Logger, Optional } from '@nestjs/common';
import { McpCluster } from '#libs/cluster';
import type { McpSession } from './mcp-session';
import { SessionStore } from './session.store';

/**
 * What a client sends to one replica for a call another replica runs: its answer to a request
 * the call sent it (elicitation, sampling, roots), its `notifications/cancelled`, and messages
 * for a session whose notification stream another replica holds. Passed on by broadcast; the
 * replica that has the call (or the stream) acts, the others find nothing and do nothing.
 * Without a cluster nothing is passed on.
 */
@Injectable()
export class SessionRelay {
  private readonly logger = new Logger('McpSessionRelay');

  constructor(
    private readonly sessions: SessionStore,
    @Optional() private readonly cluster?: McpCluster,
  ) {
    if (!cluster?.enabled) return;
    cluster.on('client-response', ({ session, id, result, error, from }) => {
      if (from === cluster.replica || typeof session !== 'string') return;
      this.sessions
        .get(session)
        ?.clientRequests.settle(id, result, error as { message?: unknown; code?: unknown } | undefined);
    });
    cluster.on('cancel', ({ session, requestId, reason, from }) => {
      if (from === cluster.replica || typeof session !== 'string') return;
      if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
      this.sessions
        .get(session)
        ?.inFlight.get(requestId)
        ?.cancelByClient(typeof reason === 'string' ? reason : 'no reason given');
    });
    cluster.on('session-message', ({ session, message, from }) => {
      if (from === cluster.replica || typeof session !== 'string' || typeof message !== 'string') return;
      this.sessions.get(session)?.sink?.(message);
    });
  }

  /**
   * Sends a message that belongs to no request to the session's notification stream: this
   * replica's, or, with replicas sharing the session, whichever holds one. `false` when there is
   * none to send it on.
   */
  toSession(session: McpSession, message: string): boolean {
    const sink = session.sink;
    if (sink) {
      sink(message);
      return true;
    }
    if (!this.enabled || session.id === undefined) return false;
    this.forwardMessage(session.id, message);
    return true;
  }

  /** Whether there are other replicas to pass things on to. */
  get enabled(): boolean {
    return this.cluster?.enabled === true;
  }

  /** The client's answer to a request this replica did not send: to the replica waiting for it. */
  forwardResponse(session: string, id: unknown, result: unknown, error: unknown): void {
    this.send({ type: 'client-response', session, id, result, error });
  }

  /** The client cancelled a request this replica does not run: to the replica running it. */
  forwardCancel(session: string, requestId: string | number, reason: string): void {
    this.send({ type: 'cancel', session, requestId, reason });
  }

  /** A message for a session whose notification stream is held elsewhere. */
  forwardMessage(session: string, message: string): void {
    this.send({ type: 'session-message', session, message });
  }

  private send(message: { type: string; [field: string]: unknown }): void {
    this.cluster!.broadcast(message).catch((error: Error) =>
      this.logger.warn(`cannot pass ${message.type} on to the other replicas: ${error.message}`),
    );
  }
}
