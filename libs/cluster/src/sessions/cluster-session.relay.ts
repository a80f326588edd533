import { Logger } from '@nestjs/common';
import type { McpSession, SessionRelay, SessionStore } from '#libs/protocol';
import type { McpCluster } from '../replicas/mcp-cluster';

/** The messages the replicas pass each other for a session. */
const RESPONSE = 'client-response';
const CANCEL = 'cancel';
const MESSAGE = 'session-message';

/**
 * The relay of a cluster (the `cluster` option): what a client sends to one replica for a call
 * another replica runs — its answer to a request the call sent it, its `notifications/cancelled`
 * — and messages for a session whose notification stream another replica holds are passed on by
 * broadcast. The replica that has the call (or the stream) acts; the others find nothing and do
 * nothing.
 */
export class ClusterSessionRelay implements SessionRelay {
  private readonly logger = new Logger('McpSessionRelay');

  constructor(
    private readonly sessions: SessionStore,
    private readonly cluster: McpCluster,
  ) {
    cluster.on(RESPONSE, ({ session, id, result, error, from }) => {
      if (from === cluster.replica || typeof session !== 'string') return;
      this.sessions
        .get(session)
        ?.clientRequests.settle(id, result, error as { message?: unknown; code?: unknown } | undefined);
    });
    cluster.on(CANCEL, ({ session, requestId, reason, from }) => {
      if (from === cluster.replica || typeof session !== 'string') return;
      if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
      this.sessions
        .get(session)
        ?.inFlight.get(requestId)
        ?.cancelByClient(typeof reason === 'string' ? reason : 'no reason given');
    });
    cluster.on(MESSAGE, ({ session, message, from }) => {
      if (from === cluster.replica || typeof session !== 'string' || typeof message !== 'string') return;
      this.sessions.get(session)?.sink?.(message);
    });
  }

  /** This replica's stream of the session, else the replica holding one (a stateful session only). */
  toSession(session: McpSession, message: string): boolean {
    const sink = session.sink;
    if (sink) {
      sink(message);
      return true;
    }
    return session.id !== undefined && this.send({ type: MESSAGE, session: session.id, message });
  }

  forwardResponse(session: McpSession, id: unknown, result: unknown, error: unknown): boolean {
    return session.id !== undefined && this.send({ type: RESPONSE, session: session.id, id, result, error });
  }

  forwardCancel(session: McpSession, requestId: string | number, reason: string): boolean {
    return session.id !== undefined && this.send({ type: CANCEL, session: session.id, requestId, reason });
  }

  private send(message: { type: string; [field: string]: unknown }): true {
    this.cluster
      .broadcast(message)
      .catch((error: Error) =>
        this.logger.warn(`cannot pass ${message.type} on to the other replicas: ${error.message}`),
      );
    return true;
  }
}
