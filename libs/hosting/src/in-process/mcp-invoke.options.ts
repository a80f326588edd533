import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpLogLevel, McpPrincipal, McpTransportKind } from '#libs/core';
import type { AuditOutcome } from '#libs/security';

/** A progress notification of a call made through `McpInvoker`. */
export interface McpInvokeProgress {
  progress: number;
  total?: number;
  message?: string;
}

/**
 * How one request made through `McpInvoker` is made: who makes it, how it is cancelled, and
 * what receives its progress, log messages and requests for user input.
 * @example
 * ```ts
 * const result = await invoker.callTool('export_ticket_report', { status: 'open' }, {
 *   credential: process.env.DESK_API_KEY,
 *   signal: AbortSignal.timeout(60_000),
 *   onProgress: ({ progress, total }) => console.log(`${progress}/${total ?? '?'}`),
 * });
 * ```
 */
export interface McpInvokeOptions {
  /**
   * Who calls, as trusted code says (nothing checks it). Without it and without `credential`,
   * the call is made by the module's `stdioPrincipal` (the local operator).
   */
  principal?: McpPrincipal;
  /**
   * A credential the host's authenticator checks, as it checks an HTTP request's bearer token:
   * an API key (`auth: { mode: 'apiKey' }`) or an OAuth access token. One that is not valid is
   * refused with an `McpInvocationError` (`unauthenticated`) and audited. Under `auth: { mode:
   * 'none' }` nothing can check it, so any credential is refused (`invalid`) rather than ignored.
   */
  credential?: string;
  /** Cancels the call, as `notifications/cancelled` does: the tool's `ctx.signal` fires. */
  signal?: AbortSignal;
  /** Receives the call's progress notifications (a progress token is sent only when this is set). */
  onProgress?: (progress: McpInvokeProgress) => void;
  /** Receives the call's log messages at `logLevel` and above. */
  onLog?: (level: McpLogLevel, data: unknown, logger: string | undefined) => void;
  /** The least severe log message `onLog` receives. @default 'info' */
  logLevel?: McpLogLevel;
  /**
   * Answers the call's requests for user input (`ctx.elicit()`), among them the confirmation of
   * a tool with `confirm` or `destructiveHint`. Without it, such a call waits for an approver
   * (the admin dashboard, the admin API, the approval webhook), as for a client without forms.
   */
  elicit?: (request: ElicitRequest['params']) => Promise<ElicitResult>;
  /**
   * What the caller declares it can do, as a client's `capabilities`: by default form elicitation
   * when `elicit` is given, else nothing. A call relayed on a caller's behalf declares the caller's
   * own, so that a tool asks that caller only what it can answer (and a confirmation its client
   * cannot show waits for an approver, as for a direct call).
   */
  clientCapabilities?: Readonly<Record<string, unknown>>;
  /**
   * How audit records, metrics and `ctx.transport` name the surface: `in-process`, `cli`, or, for
   * a call relayed on a caller's behalf (the tool search's `call_tool`), the caller's own. @default 'in-process'
   */
  transport?: McpTransportKind;
  /**
   * Who the client is, in audit records and `ctx.clientInfo`; `null` for none known (a relayed
   * call whose caller named none). @default { name: 'in-process', version: '1' }
   */
  clientInfo?: { name: string; version: string } | null;
  /** The client's network address, in audit records and `ctx.remoteAddress` (a relayed call's caller's). */
  remoteAddress?: string;
}

/** The answer to one request made through `McpInvoker.send`. */
export interface McpInvocation<T> {
  result: T;
  /**
   * How the audit trail recorded it: `ok`, or why a result came back with `isError`
   * (`tool_error`, `denied` when a confirmation was declined, `throttled`, `timeout`, …).
   */
  outcome: AuditOutcome;
}
