import { Injectable } from '@nestjs/common';
import {
  JsonRpcError,
  JsonRpcErrorCode,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  type McpLogLevel,
} from '#libs/core';
import { InjectProtocolOptions, type ProtocolOptions } from '../options/protocol.options';
import { EMPTY_RESULT, type DispatchScope, type McpMethods } from '../methods/method-handler';

const LOG_LEVELS = new Set<string>(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);

/** What the host offers, announced in the `initialize` result. */
const CAPABILITIES = {
  tools: { listChanged: true },
  prompts: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  completions: {},
  logging: {},
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
};

/** `initialize`, `ping` and `logging/setLevel`. */
@Injectable()
export class LifecycleMethods implements McpMethods {
  readonly methods: McpMethods['methods'] = {
    initialize: (params, _id, scope) => this.initialize(params, scope),
    ping: () => EMPTY_RESULT,
    'logging/setLevel': (params, _id, scope) => this.setLogLevel(params, scope),
  };
  /** The `initialize` result per negotiated version, serialized once. */
  private readonly results = new Map<string, string>();

  constructor(@InjectProtocolOptions() private readonly options: ProtocolOptions) {}

  private initialize(params: Record<string, unknown>, scope: DispatchScope): string {
    const requested = params.protocolVersion;
    if (typeof requested !== 'string') {
      throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, 'initialize: "protocolVersion" must be a string');
    }
    const version = SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
    const session = scope.session;
    session.protocolVersion = version;
    session.opened = true;
    const clientInfo = params.clientInfo as { name?: unknown; version?: unknown } | undefined;
    if (clientInfo && typeof clientInfo.name === 'string') {
      session.clientInfo = { name: clientInfo.name, version: String(clientInfo.version ?? '') };
    }
    if (typeof params.capabilities === 'object' && params.capabilities !== null) {
      session.clientCapabilities = params.capabilities as Record<string, unknown>;
    }
    let result = this.results.get(version);
    if (result === undefined) {
      const { name, version: serverVersion, title, instructions } = this.options.server;
      result = JSON.stringify({
        protocolVersion: version,
        capabilities: CAPABILITIES,
        serverInfo: { name, version: serverVersion, ...(title !== undefined && { title }) },
        ...(instructions !== undefined && { instructions }),
      });
      this.results.set(version, result);
    }
    return result;
  }

  private setLogLevel(params: Record<string, unknown>, scope: DispatchScope): string {
    if (typeof params.level !== 'string' || !LOG_LEVELS.has(params.level)) {
      throw new JsonRpcError(
        JsonRpcErrorCode.INVALID_PARAMS,
        `logging/setLevel: "level" must be one of ${[...LOG_LEVELS].join(', ')}`,
      );
    }
    scope.session.logLevel = params.level as McpLogLevel;
    return EMPTY_RESULT;
  }
}
