import type {
  CreateMessageRequest,
  CreateMessageResult,
  ElicitRequest,
  ElicitResult,
  Root,
} from '@modelcontextprotocol/sdk/types.js';

/** Options of a request the host sends to the client on behalf of a tool. */
export interface McpClientRequestOptions {
  /** Give up (the tool gets an `McpToolError`) after this long. @default 60_000 */
  timeoutMs?: number;
  /**
   * The request's key in a 2026-07-28 `InputRequiredResult` (`inputRequests[key]`), under which
   * the client answers it (`inputResponses[key]`). Name it when a client should recognise the
   * request; unnamed requests are keyed by their place in the call (`"1"`, `"2"`, …). A key used
   * twice in one call gets a suffix (`"name-2"`). Ignored by 2025-era sessions.
   * @example
   * const { content } = await ctx.elicit({ message: 'What is your name?', requestedSchema }, { key: 'user_name' });
   */
  key?: string;
  /**
   * 2026-07-28: take the client's answer only from the retry of the round that asked for it (its
   * `requestState` lists this very request), never one the client sent without being asked. For
   * answers that authorise something, as the confirmation of destructive tools does. @default false
   */
  onlyWhenAsked?: boolean;
}

/** Log levels of `notifications/message` (RFC 5424 names, as the MCP spec uses). */
export type McpLogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency';

/** The levels of `notifications/message`, least severe first (syslog's, as MCP defines them). */
export const MCP_LOG_LEVELS: readonly McpLogLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

/** Whether `value` names a level of `notifications/message`. */
export function isMcpLogLevel(value: unknown): value is McpLogLevel {
  return typeof value === 'string' && (MCP_LOG_LEVELS as readonly string[]).includes(value);
}

/** Sends `notifications/message` to the client that made the call. */
export interface McpCallLogger {
  log(level: McpLogLevel, data: unknown): void;
  debug(data: unknown): void;
  info(data: unknown): void;
  notice(data: unknown): void;
  warning(data: unknown): void;
  error(data: unknown): void;
}

/**
 * Who is calling: the authenticated principal (an API key's principal, a token's subject, the
 * configured local operator on stdio), or `anonymous` when authentication is off.
 */
export interface McpPrincipal {
  id: string;
  scopes: readonly string[];
  roles: readonly string[];
  claims: Readonly<Record<string, unknown>>;
  /**
   * The composed virtual server the request came through (its own path, docs/virtual-servers.md):
   * the caller sees and calls only what it selects. Absent on the host's own endpoints.
   */
  server?: McpServerSelection;
}

/**
 * What a composed virtual server serves of the host's catalog: lists and calls through its path
 * agree on it, as they agree on the access policy. The host sets it (`McpPrincipal.server`) on
 * requests through a composed server's path; a tool may read it to know where it was called from.
 * @example
 * ```ts
 * @McpTool({ description: 'Where am I?' })
 * where(@McpContext() context: McpCallContext) {
 *   return context.caller.server?.name ?? 'the host itself';
 * }
 * ```
 */
export interface McpServerSelection {
  /** The server's name, in the audit records of its calls. */
  readonly name: string;
  /** Equal for equal selections and infos (list pages and `initialize` results are cached per key). */
  readonly key: string;
  /** What `initialize` and `server/discover` say of the server through its path. */
  readonly info: { readonly name: string; readonly title?: string; readonly instructions?: string };
  /** Whether the server serves `entry` to `principal` (its selection and that selection's own scopes and roles). */
  selects(entry: McpSelectableEntry, principal: McpPrincipal): boolean;
}

/** A catalog entry as a server's selection sees it: its name (or URI) and where it comes from. */
export interface McpSelectableEntry {
  readonly key: string;
  readonly origin?: { readonly kind: 'local' | 'rest' | 'api' | 'upstream'; readonly name?: string };
}

/** What a call serves. */
export type McpCallKind = 'tool' | 'prompt' | 'resource';

/**
 * Every surface a call can arrive on: the MCP transports (Streamable HTTP, stdio), the in-process
 * invocation API (`McpInvoker`) and the command line (`runMcpCli`). The audit trail names it as
 * `transport`; the cross-surface test (test/one-policy-every-surface.e2e-spec.ts) fails when one is
 * added that it does not cover.
 * @example
 * for (const transport of MCP_TRANSPORT_KINDS) console.log(transport); // http, stdio, in-process, cli
 */
export const MCP_TRANSPORT_KINDS = ['http', 'stdio', 'in-process', 'cli'] as const;

/** The surface a call arrived on (one of `MCP_TRANSPORT_KINDS`). */
export type McpTransportKind = (typeof MCP_TRANSPORT_KINDS)[number];

/** Everything a tool may want to know about the call it is serving; injected with `@McpContext()`. */
export interface McpCallContext {
  /** The JSON-RPC request id. */
  readonly requestId: string | number;
  /** The session id (stateful HTTP and stdio), `undefined` in stateless mode. */
  readonly sessionId: string | undefined;
  /** The protocol revision negotiated with (or announced by) the client. */
  readonly protocolVersion: string;
  /** What is being served: a tool call, a prompt or a resource read. */
  readonly kind: McpCallKind;
  /** The tool or prompt name, or the resource URI. */
  readonly target: string;
  readonly transport: McpTransportKind;
  /** The client's `clientInfo` from `initialize`, when known. */
  readonly clientInfo: { name: string; version: string } | undefined;
  readonly caller: McpPrincipal;
  /** The request's `_meta` (progress token, trace context, …); empty when absent. */
  readonly meta: Readonly<Record<string, unknown>>;
  /** The client's network address (HTTP); `undefined` on stdio. */
  readonly remoteAddress: string | undefined;
  /** HTTP request headers (lower-case names); empty on stdio. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Aborted when the client cancels the call, disconnects, or the host shuts down. */
  readonly signal: AbortSignal;
  /**
   * Sends `notifications/progress` when the request carried a `progressToken`; a no-op
   * otherwise. `progress` must increase from one call to the next (the spec requires it).
   */
  reportProgress(progress: number, total?: number, message?: string): void;
  /** Sends `notifications/message` to the calling client. */
  readonly log: McpCallLogger;
  /**
   * Lets go of the HTTP connection of a long call (SEP-1699 polling): the SSE stream is closed
   * now, the call goes on, and the client reconnects with `Last-Event-ID` to receive the rest
   * and the result. A no-op on stdio, in stateless mode, or for clients that accept no SSE.
   */
  closeSseStream(): void;
  /** The capabilities the client declared in `initialize`, or in a 2026-07-28 request's `_meta` (empty when unknown). */
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  /**
   * Asks the user for input through the client (`elicitation/create`, form or URL mode). A
   * 2026-07-28 request is answered with an `InputRequiredResult` instead, and the handler runs
   * again from the start when the client brings the answer: ask before you act.
   * @throws McpToolError when the client lacks the capability, refuses, times out, or the call is
   *   cancelled (2026-07-28: a capability the client did not declare ends the request with `-32021`).
   */
  elicit(params: ElicitRequest['params'], options?: McpClientRequestOptions): Promise<ElicitResult>;
  /**
   * Tells the client that the out-of-band interaction of a URL-mode elicitation is over
   * (`notifications/elicitation/complete`), so it can update its UI or retry.
   * @example
   * ```ts
   * await ctx.elicit({ mode: 'url', elicitationId: id, url: `https://desk.example/connect/${id}`, message: 'Connect your CRM account' });
   * await connected(id); // the user finished on that page
   * ctx.completeElicitation(id);
   * ```
   */
  completeElicitation(elicitationId: string): void;
  /**
   * Asks the client's model for a completion (`sampling/createMessage`); in a 2026-07-28 request,
   * through an `InputRequiredResult` as `elicit` does.
   * @throws McpToolError when the client lacks the capability (or `sampling.tools` when tools are given), refuses or times out.
   */
  sample(params: CreateMessageRequest['params'], options?: McpClientRequestOptions): Promise<CreateMessageResult>;
  /**
   * The client's roots (`roots/list`); in a 2026-07-28 request, through an `InputRequiredResult`
   * as `elicit` does.
   * @throws McpToolError when the client lacks the `roots` capability, refuses or times out.
   */
  roots(options?: McpClientRequestOptions): Promise<Root[]>;
  /**
   * Where a tool declared with `taskStart: 'manual'` becomes a task (2026-07-28 tasks extension):
   * a client that declared `io.modelcontextprotocol/tasks` gets its `CreateTaskResult` now, and the
   * rest of the call runs in the background, its result fetched with `tasks/get`. Input gathered
   * before this point was answered within the `tools/call` itself; from here on, the call's
   * requests to the client wait for `tasks/update`. Elsewhere (other clients, other eras, tools
   * that start their task with the call) it resolves at once and changes nothing.
   * @example
   * ```ts
   * @McpTool({ description: 'Imports a file after asking which one', task: 'optional', taskStart: 'manual' })
   * async import(@McpContext() ctx: McpCallContext) {
   *   const answer = await ctx.elicit({ message: 'Which file?', requestedSchema });
   *   await ctx.continueAsTask();
   *   return this.importer.run(answer.content?.file); // long: the client polls the task
   * }
   * ```
   */
  continueAsTask(): Promise<void>;
}
