import type { JsonRpcError, McpPrincipal, McpTransportKind } from '#libs/core';
import type { CallChannel } from '#libs/invocation';
import type { AuditOutcome } from '#libs/security';
import type { McpSession } from '../sessions/mcp-session';
import type { RequestNote } from '../events/request-note';
import type { JsonRpcId } from '../wire/json-rpc';
import type { McpRequestMethod } from '../wire/mcp-method.table';

/**
 * Where a call's requests to the client (elicitation, sampling, roots) go when not on the
 * session's JSON-RPC channel: a 2026-07-28 request gathers them into an `InputRequiredResult`
 * (`InputRound`, set by `CallScope.serve`), a task waits for `tasks/update`. The call's
 * `CallChannel` hands its `request` and `missingCapability` on to them, so they keep its contract.
 */
export type ClientInputs = Pick<CallChannel, 'request' | 'missingCapability'>;

/** What a transport tells the dispatcher about one incoming message. */
export interface DispatchScope {
  session: McpSession;
  transport: McpTransportKind;
  /** Who sent the message (authenticated by the transport). */
  principal: McpPrincipal;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The client's network address (HTTP only). */
  remoteAddress?: string;
  /** Sends a message tied to the request being served (its SSE stream, or stdout); false if it cannot be delivered. */
  notify: (message: string) => boolean;
  /**
   * Lets a call be aborted when the transport loses its request (e.g. the client
   * disconnected): registers `abort` and returns how to unregister it.
   */
  onLost?: (abort: (reason: Error) => void) => () => void;
  /** Ends the request's SSE connection early; the client resumes it (no-op where not resumable). */
  closeStream?: () => void;
  /**
   * Set by the dispatcher: the HTTP status the revision prescribes for the error it answered
   * (2026-07-28: 400 for a bad `_meta` envelope or a missing client capability, 404 for an
   * unknown method). A value, not a callback: see `headerMismatch`.
   */
  httpStatus?: number;
  /**
   * Set by the transport before dispatch: where its copies of the request disagree with the body
   * (2026-07-28 HTTP headers mirror the method, name and version), the error to answer instead,
   * before the request's `_meta` is read. A value, not a callback: a function literal assigned to
   * a property is allocated in V8's old space (it is taken for a method), and one per request
   * kept every request's objects alive until the next full collection.
   */
  headerMismatch?: JsonRpcError;
  /** Where the call's requests to the client go instead of the session (see `ClientInputs`). */
  clientInputs?: ClientInputs;
  /** Hands the rest of the call to a task (`McpCallContext.continueAsTask`); absent where a call cannot become one. */
  continueAsTask?: () => Promise<void>;
  /** Told how the request ended, as the audit trail records it (the in-process API reports it to its caller). */
  onFinished?: (outcome: AuditOutcome) => void;
}

/**
 * Answers one JSON-RPC method: resolves to the `result` as JSON text. `note` collects what the
 * audit trail and metrics need (the entry used, its arguments, why it failed).
 */
export type MethodHandler = (
  params: Record<string, unknown>,
  id: JsonRpcId,
  scope: DispatchScope,
  note: RequestNote,
) => string | Promise<string>;

/**
 * A group of MCP methods (tools, prompts, …) the dispatcher routes to. Its keys are rows of the
 * method table (`mcp-method.table.ts`), so a misspelt method does not compile.
 */
export interface McpMethods {
  readonly methods: Readonly<Partial<Record<McpRequestMethod, MethodHandler>>>;
}

/**
 * The method groups the dispatcher routes to, provided by the module that assembles the host
 * (the prompts and resources features own theirs, and the engine does not depend on them).
 */
export const MCP_METHOD_GROUPS = Symbol('MCP:METHOD_GROUPS');

export const EMPTY_RESULT = '{}';
