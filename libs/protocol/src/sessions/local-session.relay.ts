import type { McpSession } from './mcp-session';
import type { SessionRelay } from './session-relay';

/** The relay of one replica: a session's stream, if any, is here, and there is no one to pass anything to. */
export class LocalSessionRelay implements SessionRelay {
  toSession(session: McpSession, message: string): boolean {
    const sink = session.sink;
    if (!sink) return false;
    sink(message);
    return true;
  }

  forwardResponse(_session: McpSession, _id: unknown, _result: unknown, _error: unknown): boolean {
    return false;
  }

  forwardCancel(_session: McpSession, _requestId: string | number, _reason: string): boolean {
    return false;
  }
}
