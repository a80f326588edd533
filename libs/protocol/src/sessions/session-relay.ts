import { Inject } from '@nestjs/common';
import type { McpSession } from './mcp-session';

/**
 * What a client sends to one replica for something another replica has: its answer to a request
 * a call sent it (elicitation, sampling, roots), its `notifications/cancelled` of a call, and the
 * messages for a session whose notification stream is held elsewhere. One replica has everything
 * itself (`LocalSessionRelay`: nothing to pass on); with the `cluster` option the cluster's
 * passes them to the replica that has the call or the stream.
 */
export interface SessionRelay {
  /**
   * Sends a message that belongs to no request to the session's notification stream, whichever
   * replica holds it. `false` when there is none to send it on.
   */
  toSession(session: McpSession, message: string): boolean;
  /**
   * Passes the client's answer to a request this replica did not send to the replica waiting for
   * it. `false` when there is no other replica to pass it to.
   */
  forwardResponse(session: McpSession, id: unknown, result: unknown, error: unknown): boolean;
  /**
   * Passes the client's cancellation of a request this replica does not run to the replica
   * running it. `false` when there is no other replica to pass it to.
   */
  forwardCancel(session: McpSession, requestId: string | number, reason: string): boolean;
}

/** Token of the `SessionRelay` (the hosting module provides the one its options ask for). */
export const MCP_SESSION_RELAY = Symbol('MCP:SESSION_RELAY');

/** Injects the `SessionRelay`. */
export const InjectSessionRelay = () => Inject(MCP_SESSION_RELAY);
