import { Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { CATALOG_PROVIDERS, JsonSchemaFactory, McpCatalog, PromptRegistry, ResourceRegistry, ToolRegistry } from '#libs/catalog';
import { INVOCATION_PROVIDERS, MCP_INVOCATION_OPTIONS } from '#libs/invocation';
import { PROMPT_PROVIDERS } from '#libs/prompts';
import { McpResourceNotifier, RESOURCE_PROVIDERS, ResourceReader } from '#libs/resources';
import { AuditTrail, Authenticator, AuthFailureLimiter, MCP_ACCESS_POLICY, MCP_SECURITY_OPTIONS, ScopeAndRolePolicy, type SecurityOptions } from '#libs/security';
import {
  AccessControl,
  CallScope,
  CompletionMethods,
  HostState,
  InMemoryTaskStore,
  LifecycleMethods,
  MCP_PROTOCOL_OPTIONS,
  MCP_TASK_STORE,
  McpDispatcher,
  McpRequestObservers,
  McpTracing,
  PromptMethods,
  RequestTelemetry,
  ResourceMethods,
  SessionStore,
  StatelessCalls,
  TaskMethods,
  TaskRunner,
  ToolMethods,
} from '#libs/protocol';
import { DependencyHealth, MCP_OPERATIONS_OPTIONS, McpApprovals, McpCallStats, McpMetrics, operationsParts, type OperationsSwitches } from '#libs/operations';
import { HttpEndpointMounter } from './http/http-endpoint.mounter';
import { StreamableHttpHandler } from './http/streamable-http.handler';
import { MCP_ASYNC_OPTIONS_TYPE, MCP_MODULE_OPTIONS, MCP_OPTIONS_TYPE, McpConfigurableModule, type McpModuleExtras } from './mcp.module-definition';
import { McpHost } from './mcp.host';
import type { McpModuleOptions } from './interfaces/mcp-module-options.interface';
import { MCP_RESOLVED_OPTIONS, resolveMcpOptions, type ResolvedMcpOptions } from './options/mcp-options.resolver';
import { MCP_HOSTING_OPTIONS } from './options/hosting.options';
import { StdioTransport } from './stdio/stdio.transport';

/** Each library reads its own slice of the validated options. */
const OPTION_SLICES = (
  [
    [MCP_PROTOCOL_OPTIONS, 'protocol'],
    [MCP_INVOCATION_OPTIONS, 'invocation'],
    [MCP_SECURITY_OPTIONS, 'security'],
    [MCP_OPERATIONS_OPTIONS, 'operations'],
    [MCP_HOSTING_OPTIONS, 'hosting'],
  ] as const
).map(([token, slice]) => ({ provide: token, useFactory: (options: ResolvedMcpOptions) => options[slice], inject: [MCP_RESOLVED_OPTIONS] }));

/**
 * The MCP host. Import it once in the application's root module: every `@McpTool` method of
 * every provider is served over Streamable HTTP (on the Nest HTTP server) and/or stdio, with
 * health probes at `/health/live` and `/health/ready`.
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
@Module({
  imports: [DiscoveryModule],
  providers: [
    { provide: MCP_RESOLVED_OPTIONS, useFactory: (options: McpModuleOptions) => resolveMcpOptions(options), inject: [MCP_MODULE_OPTIONS] },
    ...OPTION_SLICES,
    ...CATALOG_PROVIDERS,
    ...INVOCATION_PROVIDERS,
    ...PROMPT_PROVIDERS,
    ...RESOURCE_PROVIDERS,
    { provide: Authenticator, useFactory: ({ auth }: SecurityOptions) => new Authenticator(auth), inject: [MCP_SECURITY_OPTIONS] },
    {
      // `undefined` without the `audit` option: whoever injects it does so with @Optional().
      provide: AuditTrail,
      useFactory: ({ audit }: SecurityOptions) => (audit ? new AuditTrail(audit.sink, audit.settings) : undefined),
      inject: [MCP_SECURITY_OPTIONS],
    },
    {
      // One count of failed authentications per address for every protected surface.
      provide: AuthFailureLimiter,
      useFactory: ({ authFailureLimit }: SecurityOptions) => new AuthFailureLimiter(authFailureLimit.limit, authFailureLimit.windowMs),
      inject: [MCP_SECURITY_OPTIONS],
    },
    RequestTelemetry,
    AccessControl,
    HostState,
    SessionStore,
    CallScope,
    StatelessCalls,
    LifecycleMethods,
    ToolMethods,
    PromptMethods,
    ResourceMethods,
    CompletionMethods,
    TaskMethods,
    TaskRunner,
    McpDispatcher,
    StreamableHttpHandler,
    HttpEndpointMounter,
    StdioTransport,
    McpHost,
    McpRequestObservers,
    // Health, metrics, the admin dashboard and approvals: added by forRoot/forRootAsync, only the
    // parts that are on (see operationsParts).
  ],
  exports: [
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
  ],
})
export class McpModule extends McpConfigurableModule {
  static override forRoot(options: typeof MCP_OPTIONS_TYPE): DynamicModule {
    const mount = options.mount ?? {};
    const metrics = options.metrics;
    const http = options.http !== false;
    // The options are known here: a part they turn off (or that has nowhere to be served) is left out.
    return withExtras(super.forRoot(options), options, {
      health: options.health !== false,
      admin: mount.admin !== false && options.admin !== false && http,
      metrics: mount.metrics !== false && metrics !== false && (http || (typeof metrics === 'object' && metrics.port !== undefined)),
    });
  }

  static override forRootAsync(options: typeof MCP_ASYNC_OPTIONS_TYPE): DynamicModule {
    return withExtras(super.forRootAsync(options), options, {
      health: options.health !== false,
      admin: options.mount?.admin !== false,
      metrics: options.mount?.metrics !== false,
    });
  }
}

/** Applies the module-level extras: the operations parts, the task store and the access policy. */
function withExtras(definition: DynamicModule, extras: McpModuleExtras, on: OperationsSwitches): DynamicModule {
  const operations = operationsParts(on);
  return {
    ...definition,
    imports: [...(definition.imports ?? []), ...operations.imports],
    controllers: [...(definition.controllers ?? []), ...operations.controllers],
    providers: [
      ...(definition.providers ?? []),
      ...operations.providers,
      { provide: MCP_TASK_STORE, useClass: extras.taskStore ?? InMemoryTaskStore },
      { provide: MCP_ACCESS_POLICY, useClass: extras.accessPolicy ?? ScopeAndRolePolicy },
    ],
  };
}
