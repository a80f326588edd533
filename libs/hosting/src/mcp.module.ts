import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import {
  CATALOG_PROVIDERS,
  JsonSchemaFactory,
  MCP_CATALOG_OPTIONS,
  McpCatalog,
  PromptRegistry,
  ResourceRegistry,
  ToolRegistry,
} from '#libs/catalog';
import { INVOCATION_PROVIDERS, MCP_INVOCATION_OPTIONS } from '#libs/invocation';
import { PROMPT_PROVIDERS, PromptMethods } from '#libs/prompts';
import { ToolMethods } from '#libs/tools';
import { McpResourceNotifier, RESOURCE_PROVIDERS, ResourceMethods, ResourceReader } from '#libs/resources';
import {
  AuditRecorder,
  AuditTrail,
  MCP_ACCESS_POLICY,
  MCP_SECURITY_OPTIONS,
  ScopeAndRolePolicy,
  SECURITY_PROVIDERS,
} from '#libs/security';
import {
  ENGINE_METHOD_GROUPS,
  HostState,
  MCP_METHOD_GROUPS,
  MCP_PROTOCOL_EXTENSIONS,
  MCP_PROTOCOL_OPTIONS,
  McpRequestObservers,
  McpTracing,
  PROTOCOL_PROVIDERS,
  SessionStore,
  type McpMethods,
} from '#libs/protocol';
import {
  DependencyHealth,
  MCP_OPERATIONS_OPTIONS,
  McpApprovals,
  McpCallStats,
  McpMetrics,
  operationsParts,
  type OperationsSwitches,
} from '#libs/operations';
import { MCP_REST_OPTIONS, REST_API_PROVIDERS, REST_PROVIDERS } from '#libs/rest';
import {
  AUTHORIZATION_SERVER_PROVIDERS,
  MCP_AUTHORIZATION_SERVER_OPTIONS,
  McpAuthorizationServer,
} from '#libs/authorization-server';
import { GATEWAY_PROVIDERS, McpGateway, MCP_GATEWAY_OPTIONS } from '#libs/gateway';
import { APPS_PROVIDERS, UiExtension } from '#libs/apps';
import {
  MCP_HTTP_SERVING,
  MCP_RESERVED_PATHS,
  MCP_VIRTUAL_SERVERS_OPTIONS,
  McpVirtualServers,
  VIRTUAL_SERVERS_PROVIDERS,
  type McpHttpServing,
  type ReservedPaths,
} from '#libs/virtual-servers';
import { MCP_TOOL_SEARCH_OPTIONS, McpToolSearch, TOOL_CALL_RELAY, type ToolCallRelay } from '#libs/tool-search';
import { CatalogPins, GOVERNANCE_PROVIDERS, MCP_GOVERNANCE_OPTIONS, McpGovernance } from '#libs/governance';
import { mcpEndpointProvider } from './endpoints/mcp-endpoint.provider';
import { McpEndpointsModule } from './endpoints/mcp-endpoints.module';
import { McpEndpoints } from './endpoints/mcp-endpoints';
import { HttpEndpointMounter } from './http/http-endpoint.mounter';
import { hostRoutes } from './options/host-routes';
import {
  DOWNSTREAM_IDENTITY_PROVIDERS,
  DownstreamIdentity,
  MCP_DOWNSTREAM_OPTIONS,
  UserConnections,
} from '#libs/downstream-identity';
import { StreamableHttpHandler } from './http/streamable-http.handler';
import { HttpAuthentication } from './http/http-authentication';
import { HttpCors } from './http/http-cors';
import { HttpResponder } from './http/http-responder';
import { StatelessHeaders } from './http/stateless-headers';
import { HttpSessions } from './http/http-sessions';
import { HttpReplies } from './http/http-reply';
import { NotificationStreams } from './http/notification-streams';
import {
  MCP_ASYNC_OPTIONS_TYPE,
  MCP_MODULE_OPTIONS,
  MCP_OPTIONS_TYPE,
  McpConfigurableModule,
  type McpModuleExtras,
} from './mcp.module-definition';
import { McpHost } from './mcp.host';
import type { McpModuleOptions } from './interfaces/mcp-module-options.interface';
import { MCP_RESOLVED_OPTIONS, resolveMcpOptions, type ResolvedMcpOptions } from './options/mcp-options.resolver';
import { MCP_HOSTING_OPTIONS } from './options/hosting.options';
import { StdioTransport } from './stdio/stdio.transport';
import { McpInvoker } from './in-process/mcp-invoker';
import { sharedStateProviders, taskStoreProvider } from './shared-state/shared-state.providers';
import {
  adminFeaturesProvider,
  checkFeatures,
  featuresOf,
  mountedFeatures,
  type McpFeatureSwitches,
} from './features/mcp-features';

/** Token of the start-up check of the features the options need against those in the module. */
const MCP_FEATURES_CHECK = Symbol('MCP:FEATURES_CHECK');

/** Each library reads its own slice of the validated options. */
const OPTION_SLICES = (
  [
    [MCP_CATALOG_OPTIONS, 'catalog'],
    [MCP_PROTOCOL_OPTIONS, 'protocol'],
    [MCP_INVOCATION_OPTIONS, 'invocation'],
    [MCP_SECURITY_OPTIONS, 'security'],
    [MCP_OPERATIONS_OPTIONS, 'operations'],
    [MCP_HOSTING_OPTIONS, 'hosting'],
    [MCP_REST_OPTIONS, 'rest'],
    [MCP_GATEWAY_OPTIONS, 'gateway'],
    [MCP_VIRTUAL_SERVERS_OPTIONS, 'virtualServers'],
    [MCP_TOOL_SEARCH_OPTIONS, 'toolSearch'],
    [MCP_AUTHORIZATION_SERVER_OPTIONS, 'authorizationServer'],
    [MCP_DOWNSTREAM_OPTIONS, 'downstream'],
    [MCP_GOVERNANCE_OPTIONS, 'governance'],
  ] as const
).map(([token, slice]) => ({
  provide: token,
  useFactory: (options: ResolvedMcpOptions) => options[slice],
  inject: [MCP_RESOLVED_OPTIONS],
}));

/** The host's own providers, with those of the features that are on. */
function hostProviders(on: McpFeatureSwitches): Provider[] {
  return [
    {
      provide: MCP_RESOLVED_OPTIONS,
      useFactory: (options: McpModuleOptions) => resolveMcpOptions(options),
      inject: [MCP_MODULE_OPTIONS],
    },
    ...OPTION_SLICES,
    {
      provide: MCP_FEATURES_CHECK,
      useFactory: (options: ResolvedMcpOptions) => checkFeatures(options, on),
      inject: [MCP_RESOLVED_OPTIONS],
    },
    ...sharedStateProviders(on),
    ...CATALOG_PROVIDERS,
    ...APPS_PROVIDERS,
    // The features' protocol extensions, announced and applied by the engine (MCP Apps).
    {
      provide: MCP_PROTOCOL_EXTENSIONS,
      useFactory: (ui: UiExtension) => [ui],
      inject: [UiExtension],
    },
    ...INVOCATION_PROVIDERS,
    ...(on.governance ? GOVERNANCE_PROVIDERS : []),
    ...PROMPT_PROVIDERS,
    ...RESOURCE_PROVIDERS,
    ...SECURITY_PROVIDERS,
    ...(on.authorizationServer ? AUTHORIZATION_SERVER_PROVIDERS : []),
    ...(on.downstream ? DOWNSTREAM_IDENTITY_PROVIDERS : []),
    ...REST_PROVIDERS,
    ...(on.restApis ? REST_API_PROVIDERS : []),
    ...(on.gateway ? GATEWAY_PROVIDERS : []),
    ...(on.virtualServers ? virtualServersProviders() : []),
    {
      // Every request the engine answers reaches the trail through this observer, and only through it.
      provide: AuditRecorder,
      useFactory: (observers: McpRequestObservers, trail?: AuditTrail) => {
        if (!trail) return undefined;
        const recorder = new AuditRecorder(trail);
        observers.add(recorder);
        return recorder;
      },
      inject: [McpRequestObservers, { token: AuditTrail, optional: true }],
    },
    ...PROTOCOL_PROVIDERS,
    ToolMethods,
    {
      // The dispatcher's routes: the engine's method groups and the features' own.
      provide: MCP_METHOD_GROUPS,
      useFactory: (...groups: McpMethods[]) => groups,
      inject: [...ENGINE_METHOD_GROUPS, ToolMethods, PromptMethods, ResourceMethods],
    },
    HttpResponder,
    HttpCors,
    HttpAuthentication,
    StatelessHeaders,
    HttpSessions,
    HttpReplies,
    NotificationStreams,
    StreamableHttpHandler,
    HttpEndpointMounter,
    StdioTransport,
    McpInvoker,
    ...(on.toolSearch ? toolSearchProviders() : []),
    McpHost,
    adminFeaturesProvider(on),
    // Health, metrics, the admin dashboard and approvals: added by withExtras, only the parts that
    // are on (see operationsParts).
  ];
}

/** Tool search, with its one `tools/call` through the host's admission. */
function toolSearchProviders(): Provider[] {
  return [
    McpToolSearch,
    // call_tool runs the chosen tool in process, through the same admission as a direct call.
    { provide: TOOL_CALL_RELAY, useFactory: (invoker: McpInvoker): ToolCallRelay => invoker, inject: [McpInvoker] },
  ];
}

/** Composed virtual servers, served through the MCP path's transport, under its path. */
function virtualServersProviders(): Provider[] {
  return [
    ...VIRTUAL_SERVERS_PROVIDERS,
    {
      provide: MCP_HTTP_SERVING,
      useFactory: (http: StreamableHttpHandler): McpHttpServing => http,
      inject: [StreamableHttpHandler],
    },
    {
      provide: MCP_RESERVED_PATHS,
      useFactory: (options: ResolvedMcpOptions, endpoints: McpEndpoints): ReservedPaths => ({
        mcpPath: options.hosting.path,
        oauth: options.security.auth.mode === 'oauth',
        taken: () => endpoints.all().flatMap((endpoint) => (endpoint.path ? [endpoint.path] : [])),
        routes: () => hostRoutes(options),
      }),
      inject: [MCP_RESOLVED_OPTIONS, McpEndpoints],
    },
  ];
}

/** What the module exports: the host's services, and those of the features that are on. */
function hostExports(on: McpFeatureSwitches): NonNullable<DynamicModule['exports']> {
  return [
    ...(on.authorizationServer ? [McpAuthorizationServer] : []),
    ...(on.downstream ? [DownstreamIdentity, UserConnections] : []),
    ...(on.governance ? [McpGovernance, CatalogPins] : []),
    McpInvoker,
    ...(on.gateway ? [McpGateway] : []),
    ...(on.virtualServers ? [McpVirtualServers] : []),
    McpCatalog,
    ToolRegistry,
    PromptRegistry,
    ResourceRegistry,
    JsonSchemaFactory,
    ResourceReader,
    McpResourceNotifier,
    McpApprovals,
    StdioTransport,
    HostState,
    SessionStore,
    McpRequestObservers,
    AuditTrail,
    DependencyHealth,
    McpCallStats,
    McpMetrics,
    McpTracing,
    McpEndpointsModule,
  ];
}

/**
 * The MCP host. Import it once in the application's root module: every `@McpTool` method of
 * every provider is served over Streamable HTTP (on the Nest HTTP server) and/or stdio, with
 * health probes at `/health/live` and `/health/ready`.
 *
 * Each `forRoot()` / `forRootAsync()` import is one endpoint with its own catalog, sessions and
 * options; to serve several, give each its own `path`, `name` and `include` (the modules whose
 * tools it serves). Clashes (same path, two dashboards or probes, stdio twice) fail at start-up.
 *
 * @example
 * ```ts
 * @Module({
 *   imports: [McpModule.forRoot({ name: 'support-desk', version: '1.0.0' })],
 *   providers: [TicketTools],
 * })
 * export class AppModule {}
 * ```
 * @example
 * ```ts
 * McpModule.forRootAsync({
 *   imports: [ConfigModule],
 *   inject: [ConfigService],
 *   useFactory: (config: ConfigService) => ({ name: 'desk', version: '1.0.0', mode: config.get('MCP_MODE') }),
 * })
 * ```
 */
@Module({ imports: [DiscoveryModule, McpEndpointsModule] })
export class McpModule extends McpConfigurableModule {
  static override forRoot(options: typeof MCP_OPTIONS_TYPE): DynamicModule {
    const mount = options.mount ?? {};
    const metrics = options.metrics;
    const http = options.http !== false;
    // The options are known here: a part they turn off (or that has nowhere to be served) is left out.
    return withExtras(super.forRoot(options), options, featuresOf(options), {
      health: options.health !== false,
      admin: mount.admin !== false && options.admin !== false && http,
      metrics:
        mount.metrics !== false &&
        metrics !== false &&
        (http || (typeof metrics === 'object' && metrics.port !== undefined)),
    });
  }

  static override forRootAsync(options: typeof MCP_ASYNC_OPTIONS_TYPE): DynamicModule {
    return withExtras(super.forRootAsync(options), options, mountedFeatures(options.mount), {
      health: options.health !== false,
      admin: options.mount?.admin !== false,
      metrics: options.mount?.metrics !== false,
    });
  }
}

/**
 * Assembles the module: the host's providers and exports with the features that are on, the
 * operations parts, the task store and the access policy; and registers the endpoint with the
 * app-wide `McpEndpoints` (which needs to know of the probes).
 */
function withExtras(
  definition: DynamicModule,
  extras: McpModuleExtras,
  features: McpFeatureSwitches,
  on: OperationsSwitches,
): DynamicModule {
  const operations = operationsParts(on);
  return {
    ...definition,
    imports: [...(definition.imports ?? []), ...operations.imports],
    controllers: [...(definition.controllers ?? []), ...operations.controllers],
    exports: [...(definition.exports ?? []), ...hostExports(features)],
    providers: [
      ...(definition.providers ?? []),
      ...hostProviders(features),
      ...operations.providers,
      taskStoreProvider(extras.taskStore),
      { provide: MCP_ACCESS_POLICY, useClass: extras.accessPolicy ?? ScopeAndRolePolicy },
      mcpEndpointProvider(extras.health !== false),
    ],
  };
}
