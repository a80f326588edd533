import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type {
  CallToolResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { JsonRpcErrorCode, LATEST_PROTOCOL_VERSION, type McpPrincipal, type McpTransportKind } from '#libs/core';
import { HostState, McpDispatcher, mcpRequest, McpSession, RequestEvents } from '#libs/protocol';
import { Authenticator, InjectSecurityOptions, type SecurityOptions } from '#libs/security';
import { InProcessChannel } from './in-process-channel';
import { McpInvocationError } from './mcp-invocation.error';
import type { McpInvocation, McpInvokeOptions } from './mcp-invoke.options';

/** The requests `McpInvoker.send` makes: the ones that name catalog entries, and their lists. */
export type McpInvokableMethod =
  | 'tools/list'
  | 'tools/call'
  | 'prompts/list'
  | 'prompts/get'
  | 'resources/list'
  | 'resources/templates/list'
  | 'resources/read';

const DEFAULT_CLIENT = { name: 'in-process', version: '1' };
const NO_HEADERS = Object.freeze({});
const UNCHECKABLE_CREDENTIAL =
  "A credential was given, but this host has no authentication (auth: { mode: 'none' }), so it cannot be checked; " +
  "it is refused rather than ignored. Leave it out to call as the configured stdioPrincipal, or configure auth mode 'apiKey' or 'oauth'.";
/** Most pages one `list*` call follows, so a misbehaving dynamic catalog cannot loop it forever. */
const MAX_PAGES = 10_000;

/**
 * Calls tools, gets prompts and reads resources of this application by name, in process: each
 * request goes through the same admission pipeline as one from an MCP client (authorization,
 * list ⇔ callable, throttling, confirmation, Nest guards, interceptors, pipes and filters, audit
 * with transport `in-process` or `cli`, metrics) and resolves to the MCP result. Inject it
 * anywhere the `McpModule` is imported.
 * @example
 * ```ts
 * @Injectable()
 * export class NightlyReport {
 *   constructor(private readonly mcp: McpInvoker) {}
 *
 *   async run(): Promise<void> {
 *     const result = await this.mcp.callTool('export_ticket_report', { status: 'open' }, {
 *       principal: { id: 'nightly-job', scopes: ['tickets:read'], roles: [], claims: {} },
 *     });
 *     if (result.isError) throw new Error(String(result.content[0]?.text));
 *   }
 * }
 * ```
 */
@Injectable()
export class McpInvoker {
  private nextId = 0;

  constructor(
    @InjectSecurityOptions() private readonly security: SecurityOptions,
    private readonly dispatcher: McpDispatcher,
    private readonly authenticator: Authenticator,
    private readonly events: RequestEvents,
    private readonly state: HostState,
  ) {}

  /**
   * Calls tool `name`. A tool that fails (or a call that is refused by throttling or a declined
   * confirmation) resolves to a result with `isError`.
   * @throws McpInvocationError for an unknown (or hidden) tool, arguments that fail its input
   *   schema, a credential that is not valid (or given to a host without authentication), a
   *   cancelled call, a host that is not serving
   */
  async callTool(
    name: string,
    args: Record<string, unknown> = {},
    options?: McpInvokeOptions,
  ): Promise<CallToolResult> {
    return (await this.send<CallToolResult>('tools/call', { name, arguments: args }, options)).result;
  }

  /** Gets prompt `name` with its arguments. @throws McpInvocationError as `callTool` does */
  async getPrompt(
    name: string,
    args: Record<string, string> = {},
    options?: McpInvokeOptions,
  ): Promise<GetPromptResult> {
    return (await this.send<GetPromptResult>('prompts/get', { name, arguments: args }, options)).result;
  }

  /** Reads the resource at `uri` (a static resource or a template's match). @throws McpInvocationError as `callTool` does */
  async readResource(uri: string, options?: McpInvokeOptions): Promise<ReadResourceResult> {
    return (await this.send<ReadResourceResult>('resources/read', { uri }, options)).result;
  }

  /** Every tool the caller may use (all pages). */
  listTools(options?: McpInvokeOptions): Promise<Tool[]> {
    return this.listAll<Tool>('tools/list', 'tools', options);
  }

  /** Every prompt the caller may use (all pages). */
  listPrompts(options?: McpInvokeOptions): Promise<Prompt[]> {
    return this.listAll<Prompt>('prompts/list', 'prompts', options);
  }

  /** Every resource the caller may read (all pages). */
  listResources(options?: McpInvokeOptions): Promise<Resource[]> {
    return this.listAll<Resource>('resources/list', 'resources', options);
  }

  /** Every resource template the caller may read (all pages). */
  listResourceTemplates(options?: McpInvokeOptions): Promise<ResourceTemplate[]> {
    return this.listAll<ResourceTemplate>('resources/templates/list', 'resourceTemplates', options);
  }

  /**
   * Makes one request and resolves to its result with the outcome the audit trail recorded (to
   * tell a tool's own failure from a refusal when both come back as `isError` results).
   * @throws McpInvocationError when the host answers with a JSON-RPC error
   */
  async send<T>(
    method: McpInvokableMethod,
    params: Record<string, unknown>,
    options: McpInvokeOptions = {},
  ): Promise<McpInvocation<T>> {
    const transport = options.transport ?? 'in-process';
    if (!this.state.accepting) {
      throw new McpInvocationError(
        JsonRpcErrorCode.INVALID_REQUEST,
        `The MCP host is not serving (${this.state.phase}): call it once the application has started`,
        'unavailable',
      );
    }
    const principal = await this.principalOf(options, transport);
    const id = ++this.nextId;
    const session = this.sessionFor(principal, options);
    const channel = new InProcessChannel(session, options);
    const parts = { session, principal, transport, headers: NO_HEADERS, remoteAddress: options.remoteAddress };
    const message = {
      jsonrpc: '2.0' as const,
      id,
      method,
      params: options.onProgress ? { ...params, _meta: { progressToken: id } } : params,
    };
    const cancel = () => {
      const reason =
        options.signal?.reason instanceof Error ? options.signal.reason.message : 'cancelled by the caller';
      const cancelled = {
        jsonrpc: '2.0' as const,
        method: 'notifications/cancelled',
        params: { requestId: id, reason },
      };
      void this.dispatcher.dispatch(mcpRequest({ ...parts, kind: 'notification', message: cancelled }), channel);
    };
    options.signal?.throwIfAborted();
    options.signal?.addEventListener('abort', cancel, { once: true });
    try {
      // The host does not let go before the answer is back with its caller (see `RequestLife`).
      const { body, outcome } = await this.dispatcher.dispatch(
        mcpRequest({ ...parts, kind: 'request', message }),
        channel,
      );
      if (body === undefined) {
        throw new McpInvocationError(JsonRpcErrorCode.INVALID_REQUEST, `${method} was cancelled`, 'cancelled');
      }
      const answer = JSON.parse(body) as { result?: T; error?: { code: number; message: string; data?: unknown } };
      if (answer.error)
        throw new McpInvocationError(answer.error.code, answer.error.message, outcome, answer.error.data);
      return { result: answer.result as T, outcome };
    } finally {
      options.signal?.removeEventListener('abort', cancel);
      session.close('the in-process request ended');
    }
  }

  private async listAll<T>(method: McpInvokableMethod, key: string, options?: McpInvokeOptions): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const { result } = await this.send<Record<string, unknown>>(method, cursor ? { cursor } : {}, options);
      items.push(...((result[key] as T[] | undefined) ?? []));
      cursor = typeof result.nextCursor === 'string' ? result.nextCursor : undefined;
      if (!cursor) break;
    }
    return items;
  }

  /**
   * Who a request made with `options` is made by: the principal trusted code names, the one its
   * credential proves (one that is not valid is refused and audited), or the local operator
   * (`stdioPrincipal`). For what is done in the caller's name outside a request, e.g. deciding
   * approval requests with `McpApprovals` from a command line.
   * @throws McpInvocationError (`unauthenticated`) for a credential that is not valid
   * @example
   * ```ts
   * const approver = await invoker.principalOf({ credential: process.env.DESK_API_KEY });
   * await approvals.decide(approver, id, true, 'checked with the customer');
   * ```
   */
  async principalOf(
    options: McpInvokeOptions = {},
    transport: McpTransportKind = options.transport ?? 'in-process',
  ): Promise<McpPrincipal> {
    if (options.principal) return options.principal;
    if (options.credential === undefined) return this.security.stdioPrincipal;
    // Without authentication nothing can check the credential: taken silently, a read-only key
    // would act as the (often all-powerful) configured principal, against what its holder meant.
    if (this.authenticator.mode === 'none') {
      this.events.refusal({ outcome: 'invalid', status: 400, message: UNCHECKABLE_CREDENTIAL, transport });
      throw new McpInvocationError(JsonRpcErrorCode.INVALID_REQUEST, UNCHECKABLE_CREDENTIAL, 'invalid');
    }
    const auth = await this.authenticator.authenticate({ authorization: `Bearer ${options.credential}` });
    if (auth.ok) return auth.principal;
    this.events.refusal({ outcome: 'unauthenticated', status: auth.status, message: auth.description, transport });
    throw new McpInvocationError(
      JsonRpcErrorCode.TRANSPORT_REFUSED,
      `${auth.status === 401 ? 'Unauthorized' : 'Forbidden'}: ${auth.description}`,
      'unauthenticated',
    );
  }

  /** A session for one request, opened as `initialize` would open it for this client. */
  private sessionFor(principal: McpPrincipal, options: McpInvokeOptions): McpSession {
    const session = new McpSession(randomUUID(), LATEST_PROTOCOL_VERSION);
    session.clientInfo = options.clientInfo === null ? undefined : (options.clientInfo ?? DEFAULT_CLIENT);
    session.clientCapabilities = options.clientCapabilities ?? (options.elicit ? { elicitation: { form: {} } } : {});
    session.logLevel = options.onLog ? (options.logLevel ?? 'info') : undefined;
    session.principalId = principal.id;
    session.opened = session.initialized = true;
    return session;
  }
}
