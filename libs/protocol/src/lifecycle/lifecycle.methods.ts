import { Injectable } from '@nestjs/common';
import {
  ALL_PROTOCOL_VERSIONS,
  isMcpLogLevel,
  JsonRpcError,
  JsonRpcErrorCode,
  LATEST_PROTOCOL_VERSION,
  MCP_LOG_LEVELS,
  SUPPORTED_PROTOCOL_VERSIONS,
  type McpLogLevel,
} from '#libs/core';
import { META_KEYS } from '../eras/request-envelope';
import { TASKS_EXTENSION } from '../eras/extensions';
import { InjectProtocolExtensions, type ProtocolExtension } from '../eras/protocol-extension';
import { InjectProtocolOptions, type ProtocolOptions } from '../options/protocol.options';
import { EMPTY_RESULT, type McpMethods } from '../methods/method-handler';
import type { McpRequest } from '../requests/mcp-request';
import type { RequestNote } from '../events/request-note';

/** What the host offers, announced in the `initialize` result (with the features' extensions). */
const CAPABILITIES = {
  tools: { listChanged: true },
  prompts: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  completions: {},
  logging: {},
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
};

/**
 * What the host offers a 2026-07-28 client in `server/discover`: the same features; resource
 * updates and list changes come through `subscriptions/listen`, tasks through their extension.
 */
const STATELESS_CAPABILITIES = {
  tools: { listChanged: true },
  prompts: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  completions: {},
  logging: {},
  extensions: { [TASKS_EXTENSION]: {} },
};

/** How long a client may keep the `server/discover` answer: it changes only with a new deployment. */
const DISCOVERY_TTL_MS = 5 * 60_000;

/** `initialize`, `ping`, `logging/setLevel` (2025-era sessions) and `server/discover` (2026-07-28). */
@Injectable()
export class LifecycleMethods implements McpMethods {
  readonly methods: McpMethods['methods'] = {
    initialize: (request, _reply, note) => this.initialize(request, note),
    ping: () => EMPTY_RESULT,
    'logging/setLevel': (request) => this.setLogLevel(request),
    'server/discover': (request) => this.discover(request),
  };
  /** The `initialize` result per negotiated version and announced extensions, serialized once. */
  private readonly results = new Map<string, string>();
  /**
   * The `server/discover` result per announced extensions, serialized once (the same for every
   * caller: cacheable publicly); a feature's extension is announced once it has something to offer.
   */
  private readonly discoveries = new Map<string, string>();

  constructor(
    @InjectProtocolOptions() private readonly options: ProtocolOptions,
    @InjectProtocolExtensions() private readonly extensions: readonly ProtocolExtension[] | undefined,
  ) {}

  /**
   * `capabilities.extensions` entries, the same in both eras, and their cache key: those the
   * options name (enterprise-managed authorization) and the features' (MCP Apps).
   */
  private featureExtensions(): { extensions: Record<string, Record<string, unknown>>; key: string } {
    const extensions: Record<string, Record<string, unknown>> = {
      ...(this.options.server.extensions as Record<string, Record<string, unknown>> | undefined),
    };
    for (const extension of this.extensions ?? []) {
      const settings = extension.settings();
      if (settings) extensions[extension.id] = settings;
    }
    const key = Object.keys(extensions).length > 0 ? JSON.stringify(extensions) : '';
    return { extensions, key };
  }

  /** The server's name, title and instructions: the host's, or the composed virtual server's the request came through. */
  private info(request: McpRequest) {
    const { server } = this.options;
    const composed = request.principal.server?.info;
    return composed ? { ...composed, version: server.version } : server;
  }

  private discover(request: McpRequest): string {
    const { extensions, key: extensionsKey } = this.featureExtensions();
    const key = `${extensionsKey} ${request.principal.server?.key ?? ''}`;
    let discovery = this.discoveries.get(key);
    if (discovery !== undefined) return discovery;
    const { name, version, title, instructions } = this.info(request);
    discovery = JSON.stringify({
      resultType: 'complete',
      supportedVersions: ALL_PROTOCOL_VERSIONS,
      capabilities: {
        ...STATELESS_CAPABILITIES,
        extensions: { ...STATELESS_CAPABILITIES.extensions, ...extensions },
      },
      ...(instructions !== undefined && { instructions }),
      ttlMs: DISCOVERY_TTL_MS,
      cacheScope: 'public',
      _meta: { [META_KEYS.serverInfo]: { name, version, ...(title !== undefined && { title }) } },
    });
    this.discoveries.set(key, discovery);
    return discovery;
  }

  private initialize(request: McpRequest, note: RequestNote): string {
    const { params, session } = request;
    const requested = params.protocolVersion;
    if (typeof requested !== 'string') {
      throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, 'initialize: "protocolVersion" must be a string');
    }
    const version = SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
    session.protocolVersion = version;
    session.opened = true;
    const clientInfo = params.clientInfo as { name?: unknown; version?: unknown } | undefined;
    if (clientInfo && typeof clientInfo.name === 'string') {
      session.clientInfo = { name: clientInfo.name, version: String(clientInfo.version ?? '') };
      note.client = session.clientInfo;
    }
    if (typeof params.capabilities === 'object' && params.capabilities !== null) {
      session.clientCapabilities = params.capabilities as Record<string, unknown>;
    }
    const { extensions, key } = this.featureExtensions();
    const cached = `${version} ${key} ${request.principal.server?.key ?? ''}`;
    let result = this.results.get(cached);
    if (result === undefined) {
      const { name, version: serverVersion, title, instructions } = this.info(request);
      result = JSON.stringify({
        protocolVersion: version,
        capabilities: key ? { ...CAPABILITIES, extensions } : CAPABILITIES,
        serverInfo: { name, version: serverVersion, ...(title !== undefined && { title }) },
        ...(instructions !== undefined && { instructions }),
      });
      this.results.set(cached, result);
    }
    return result;
  }

  private setLogLevel({ params, session }: McpRequest): string {
    if (!isMcpLogLevel(params.level)) {
      throw new JsonRpcError(
        JsonRpcErrorCode.INVALID_PARAMS,
        `logging/setLevel: "level" must be one of ${MCP_LOG_LEVELS.join(', ')}`,
      );
    }
    session.logLevel = params.level as McpLogLevel;
    return EMPTY_RESULT;
  }
}
