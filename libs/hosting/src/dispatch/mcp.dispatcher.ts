import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  JsonRpcError,
  JsonRpcErrorCode,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type McpLogLevel,
  type McpTransportKind,
} from '#libs/core';
import { ToolRegistry } from '#libs/catalog';
import { CallCancellation, CallContext, ToolInvoker, type CallChannel } from '#libs/invocation';
import { HostState } from '../lifecycle/host-state';
import { MCP_RESOLVED_OPTIONS, type ResolvedMcpOptions } from '../options/resolved-options';
import type { McpSession } from '../session/mcp-session';
import { errorResponse, notification, resultResponse, type JsonRpcId, type JsonRpcMessage, type MessageKind } from './json-rpc';

/** What a transport tells the dispatcher about one incoming message. */
export interface DispatchScope {
  session: McpSession;
  transport: McpTransportKind;
  headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Sends a notification tied to the request being served (its SSE stream, or stdout). */
  notify: (message: string) => void;
  /**
   * Lets a call be aborted when the transport loses its request (e.g. the client
   * disconnected): registers `abort` and returns how to unregister it.
   */
  onLost?: (abort: (reason: Error) => void) => () => void;
}

type RequestHandler = (params: Record<string, unknown>, id: JsonRpcId, scope: DispatchScope) => string | Promise<string>;

const LOG_LEVELS = new Set<string>(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);
const EMPTY_RESULT = '{}';

/**
 * Answers JSON-RPC messages for any transport. It holds no connection state: everything about
 * the client comes with the message's scope, so one dispatcher serves sessions, stateless
 * requests and stdio alike (and, later, revisions that carry their state in `_meta`).
 */
@Injectable()
export class McpDispatcher {
  private readonly logger = new Logger('McpDispatcher');
  private readonly requests = new Map<string, RequestHandler>([
    ['initialize', (params, _id, scope) => this.initialize(params, scope)],
    ['ping', () => EMPTY_RESULT],
    ['tools/list', (params) => this.registry.listPage(params.cursor, this.options.pageSize)],
    ['tools/call', (params, id, scope) => this.callTool(params, id, scope)],
    ['logging/setLevel', (params, _id, scope) => this.setLogLevel(params, scope)],
  ]);
  private readonly initializeResults = new Map<string, string>();

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    private readonly registry: ToolRegistry,
    private readonly invoker: ToolInvoker,
    private readonly state: HostState,
  ) {}

  /** Handles one message; resolves to the serialized response, or `undefined` when none is due. */
  async dispatch(kind: MessageKind, message: JsonRpcMessage, scope: DispatchScope): Promise<string | undefined> {
    if (kind === 'notification') {
      this.onNotification(message, scope);
      return undefined;
    }
    if (kind === 'response') return undefined; // server-to-client requests are not sent yet
    const id = message.id!;
    const handler = this.requests.get(message.method!);
    if (!handler) return errorResponse(id, JsonRpcErrorCode.METHOD_NOT_FOUND, `Method not found: ${message.method}`);
    try {
      return resultResponse(id, await handler(message.params ?? {}, id, scope));
    } catch (error) {
      if (error instanceof JsonRpcError) return errorResponse(id, error.code, error.message, error.data);
      this.logger.error(`${message.method} failed`, (error as Error)?.stack ?? String(error));
      return errorResponse(id, JsonRpcErrorCode.INTERNAL_ERROR, 'Internal error');
    }
  }

  private onNotification(message: JsonRpcMessage, scope: DispatchScope): void {
    switch (message.method) {
      case 'notifications/initialized':
        scope.session.initialized = true;
        break;
      case 'notifications/cancelled': {
        const requestId = message.params?.requestId;
        if (typeof requestId === 'string' || typeof requestId === 'number') {
          scope.session.inFlight.get(requestId)?.cancel(new Error(String(message.params?.reason ?? 'cancelled by the client')));
        }
        break;
      }
      default:
      // Unknown notifications are ignored, as JSON-RPC requires.
    }
  }

  private initialize(params: Record<string, unknown>, scope: DispatchScope): string {
    const requested = params.protocolVersion;
    if (typeof requested !== 'string') {
      throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, 'initialize: "protocolVersion" must be a string');
    }
    const version = SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
    const session = scope.session;
    session.protocolVersion = version;
    const clientInfo = params.clientInfo as { name?: unknown; version?: unknown } | undefined;
    if (clientInfo && typeof clientInfo.name === 'string') {
      session.clientInfo = { name: clientInfo.name, version: String(clientInfo.version ?? '') };
    }
    if (typeof params.capabilities === 'object' && params.capabilities !== null) {
      session.clientCapabilities = params.capabilities as Record<string, unknown>;
    }
    let result = this.initializeResults.get(version);
    if (result === undefined) {
      const { name, version: serverVersion, title, instructions } = this.options;
      result = JSON.stringify({
        protocolVersion: version,
        capabilities: { tools: { listChanged: true }, logging: {} },
        serverInfo: { name, version: serverVersion, ...(title !== undefined && { title }) },
        ...(instructions !== undefined && { instructions }),
      });
      this.initializeResults.set(version, result);
    }
    return result;
  }

  private setLogLevel(params: Record<string, unknown>, scope: DispatchScope): string {
    if (typeof params.level !== 'string' || !LOG_LEVELS.has(params.level)) {
      throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, `logging/setLevel: "level" must be one of ${[...LOG_LEVELS].join(', ')}`);
    }
    scope.session.logLevel = params.level as McpLogLevel;
    return EMPTY_RESULT;
  }

  private async callTool(params: Record<string, unknown>, id: JsonRpcId, scope: DispatchScope): Promise<string> {
    const name = params.name;
    if (typeof name !== 'string') throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, 'tools/call: "name" must be a string');
    const tool = this.registry.get(name);
    if (!tool) throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, `Unknown tool: ${name}`);
    const args = params.arguments;
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
      throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, 'tools/call: "arguments" must be an object');
    }

    const session = scope.session;
    const cancellation = new CallCancellation();
    const stopWatching = scope.onLost?.((reason) => cancellation.cancel(reason));
    session.inFlight.set(id, cancellation);
    this.state.begin(cancellation);
    const progressToken = (params._meta as { progressToken?: unknown } | undefined)?.progressToken;
    const context = new CallContext({
      requestId: id,
      sessionId: session.id,
      protocolVersion: session.protocolVersion,
      toolName: name,
      transport: scope.transport,
      clientInfo: session.clientInfo,
      headers: scope.headers,
      progressToken: typeof progressToken === 'string' || typeof progressToken === 'number' ? progressToken : undefined,
      channel: new ScopeChannel(scope),
      cancellation,
    });
    try {
      return JSON.stringify(await this.invoker.invoke(tool, args, context));
    } finally {
      session.inFlight.delete(id);
      this.state.end(cancellation);
      stopWatching?.();
    }
  }
}

/** Sends a call's notifications on the transport of the request that started it. */
class ScopeChannel implements CallChannel {
  constructor(private readonly scope: DispatchScope) {}

  get logLevel(): McpLogLevel | undefined {
    return this.scope.session.logLevel;
  }

  notify(method: string, params: Record<string, unknown>): void {
    this.scope.notify(notification(method, params));
  }
}
