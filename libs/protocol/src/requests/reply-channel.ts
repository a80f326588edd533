import type { AuditOutcome } from '#libs/security';

/** What the engine answers a request: its body (none for a notification, or a request its client cancelled), the HTTP status its revision prescribes, and how it ended. */
export interface McpAnswer {
  /** The JSON-RPC response (`undefined`: nothing is due). */
  readonly body: string | undefined;
  /** 200, or what the revision prescribes for the error it answers (2026-07-28: 400, 404). */
  readonly status: number;
  /** How the request ended, as its audit record says. */
  readonly outcome: AuditOutcome;
}

/**
 * The way back to the client of one request, implemented by its transport: Streamable HTTP (a
 * JSON body, or the request's SSE stream), stdio (a line on stdout), the in-process caller.
 */
export interface ReplyChannel {
  /**
   * A message of the request's call to its client (progress, log messages, a request to the
   * client): on the request's stream when it has one. `false` when it cannot be delivered.
   */
  send(message: string): boolean;
  /**
   * Delivers the answer; resolves once it has left (written to the socket or stdout, handed to
   * the caller), so that the host lets go of the request only then.
   */
  answer(answer: McpAnswer): Promise<void>;
  /**
   * Lets a call be aborted when the transport loses the request (its client went away): registers
   * `abort` and returns how to unregister it. Absent where a request cannot be lost.
   */
  onLost?(abort: (reason: Error) => void): () => void;
  /** Lets go of the request's stream before the answer; the client resumes it (absent where not resumable). */
  release?(): void;
}
