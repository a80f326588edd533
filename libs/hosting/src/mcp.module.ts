import { Module, type DynamicModule } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { CatalogModule } from '#libs/catalog';
import { InvocationModule } from '#libs/invocation';
import { PromptsModule } from '#libs/prompts';
import { ResourcesModule } from '#libs/resources';
import { AuditTrail, Authenticator, ScopeAndRolePolicy, MCP_ACCESS_POLICY } from '#libs/security';
import { ADMIN_PROVIDERS } from '#libs/operations';
import { McpCallStats } from '#libs/operations';
import { AccessControl } from '#libs/protocol';
import { CallScope } from '#libs/protocol';
import { StatelessCalls } from '#libs/protocol';
import { McpDispatcher } from '#libs/protocol';
import { CompletionMethods } from '#libs/protocol';
import { LifecycleMethods } from '#libs/protocol';
import { PromptMethods } from '#libs/protocol';
import { ResourceMethods } from '#libs/protocol';
import { TaskMethods } from '#libs/protocol';
import { ToolMethods } from '#libs/protocol';
import { TaskRunner } from '#libs/protocol';
import { InMemoryTaskStore, MCP_TASK_STORE } from '#libs/protocol';
import { HealthController } from '#libs/operations';
import { McpHealthIndicator } from '#libs/operations';
import { DependencyHealth } from '#libs/operations';
import { AuthFailureLimiter } from '#libs/security';
import { HttpEndpointMounter } from './http/http-endpoint.mounter';
import { StreamableHttpHandler } from './http/streamable-http.handler';
import { HostState } from '#libs/protocol';
import { ApprovalEvents } from '#libs/operations';
import { McpApprovals } from '#libs/operations';
import {
  MCP_ASYNC_OPTIONS_TYPE,
  MCP_MODULE_OPTIONS,
  MCP_OPTIONS_TYPE,
  McpConfigurableModule,
  type McpModuleExtras,
} from './mcp.module-definition';
import { McpHost } from './mcp.host';
import type { McpModuleOptions } from './interfaces/mcp-module-options.interface';
import { resolveMcpOptions } from './options/mcp-options.resolver';
import { MCP_RESOLVED_OPTIONS, type ResolvedMcpOptions } from '#libs/protocol';
import { SessionStore } from '#libs/protocol';
import { McpRequestObservers } from '#libs/protocol';
import { RequestTelemetry } from '#libs/protocol';
import { McpMetrics } from '#libs/operations';
import { McpTracing } from '#libs/protocol';
import { TELEMETRY_PROVIDERS } from '#libs/operations';
import { StdioTransport } from './stdio/stdio.transport';

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
  imports: [CatalogModule, InvocationModule, PromptsModule, ResourcesModule, TerminusModule],
  providers: [
    { provide: MCP_RESOLVED_OPTIONS, useFactory: (options: McpModuleOptions) => resolveMcpOptions(options), inject: [MCP_MODULE_OPTIONS] },
    {
      provide: Authenticator,
      useFactory: (options: ResolvedMcpOptions) => new Authenticator(options.auth),
      inject: [MCP_RESOLVED_OPTIONS],
    },
    {
      // `undefined` without the `audit` option: whoever injects it does so with @Optional().
      provide: AuditTrail,
      useFactory: (options: ResolvedMcpOptions) => (options.audit ? new AuditTrail(options.audit.sink, options.audit.settings) : undefined),
      inject: [MCP_RESOLVED_OPTIONS],
    },
    {
      // One count of failed authentications per address for every protected surface.
      provide: AuthFailureLimiter,
      useFactory: ({ authFailureLimit }: ResolvedMcpOptions) => new AuthFailureLimiter(authFailureLimit.limit, authFailureLimit.windowMs),
      inject: [MCP_RESOLVED_OPTIONS],
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
    McpHealthIndicator,
    DependencyHealth,
    McpHost,
    McpRequestObservers,
    // Approval requests of confirmed calls: audited, and announced to the approvals webhook.
    ApprovalEvents,
    McpApprovals,
    // The admin dashboard (`admin` option): page, JSON API and per-entry call statistics.
    ...ADMIN_PROVIDERS,
    // Prometheus metrics (`metrics` option) and OpenTelemetry spans around each request.
    ...TELEMETRY_PROVIDERS,
  ],
  exports: [CatalogModule, ResourcesModule, McpApprovals, StdioTransport, HostState, SessionStore, McpRequestObservers, AuditTrail, DependencyHealth, McpCallStats, McpMetrics, McpTracing],
})
export class McpModule extends McpConfigurableModule {
  static override forRoot(options: typeof MCP_OPTIONS_TYPE): DynamicModule {
    return withExtras(super.forRoot(options), options);
  }

  static override forRootAsync(options: typeof MCP_ASYNC_OPTIONS_TYPE): DynamicModule {
    return withExtras(super.forRootAsync(options), options);
  }
}

/** Applies the module-level extras: the health controller, the task store and the access policy. */
function withExtras(definition: DynamicModule, extras: McpModuleExtras): DynamicModule {
  return {
    ...definition,
    controllers: [...(definition.controllers ?? []), ...(extras.health === false ? [] : [HealthController])],
    providers: [
      ...(definition.providers ?? []),
      { provide: MCP_TASK_STORE, useClass: extras.taskStore ?? InMemoryTaskStore },
      { provide: MCP_ACCESS_POLICY, useClass: extras.accessPolicy ?? ScopeAndRolePolicy },
    ],
  };
}
