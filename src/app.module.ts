import { Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule, ConfigService } from '@nestjs/config';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { FixedWindowThrottlerStorage, McpThrottlerGuard, McpModule, type McpModuleExtras } from 'nest-mcp-host';
import { RedisClusterBackplane, RedisThrottlerStorage } from 'nest-mcp-host/redis';
import { auditOptions } from './audit.config';
import { gatewayOptions } from './gateway.config';
import { deskGovernance } from './governance.config';
import { virtualServersOptions } from './virtual-servers.config';
import { restApisOptions } from './rest-apis.config';
import { authOptions, authorizationServerOptions, downstreamOptions, stdioOperator } from './auth.config';
import { validateEnvironment, type HostEnvironment } from './host.config';
import { SupportModule } from './support/support.module';
import { TracingShutdown } from './tracing';

/** The parts and features of McpModule the desk's options can turn on for this transport. */
function deskMount(
  transport: 'http' | 'stdio' | 'cli',
  env: HostEnvironment,
  upstreams: boolean,
  apis: boolean,
): McpModuleExtras['mount'] {
  const http = transport === 'http';
  const facade = env.AUTH_MODE === 'facade';
  const virtualServers = http && env.VIRTUAL_SERVERS === 'on';
  // Composed servers add their upstreams through the gateway.
  const gateway = upstreams || virtualServers;
  return {
    admin: http,
    metrics: http,
    virtualServers,
    gateway,
    toolSearch: env.MCP_TOOL_SEARCH !== 'off',
    authorizationServer: facade,
    downstream: Boolean(env.CONNECTIONS_KEY) || facade || gateway || apis,
  };
}

/** The support-desk host, served over Streamable HTTP or stdio, or run from the command line (`cli`: no transport). */
@Module({})
export class AppModule {
  static register({ transport }: { transport: 'http' | 'stdio' | 'cli' }): DynamicModule {
    const env = validateEnvironment(process.env);
    const redis = env.REDIS_URL ? new RedisThrottlerStorage(env.REDIS_URL) : undefined;
    const gateway = gatewayOptions(env);
    const restApis = restApisOptions(env);
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, validate: validateEnvironment }),
        McpModule.forRootAsync({
          inject: [ConfigService],
          useFactory: (config: ConfigService<HostEnvironment, true>) => ({
            name: 'support-desk',
            version: '1.0.0',
            title: 'ACME Support Desk',
            instructions:
              'Tools for the ACME support desk. Search customers and tickets before creating new ones; ' +
              'close a ticket only with a resolution the customer can read.',
            mode: config.get('MCP_MODE'),
            replica: config.get('MCP_REPLICA'),
            // On SIGTERM: calls in flight get this long to finish, then are cancelled and answered so.
            shutdownTimeoutMs: config.get('MCP_SHUTDOWN_TIMEOUT_MS'),
            auth: authOptions(env),
            // AUTH_MODE=facade: people sign in at the company IdP through the desk's own authorization
            // server, which every MCP client can use (docs/authorization-server.md).
            ...(env.AUTH_MODE === 'facade' && { authorizationServer: authorizationServerOptions(env) }),
            // The caller's identity at the REST APIs and upstreams that ask for it (docs/downstream-identity.md).
            ...(env.CONNECTIONS_KEY && { downstream: downstreamOptions(env) }),
            stdioPrincipal: stdioOperator(env),
            allowedHosts: config.get('MCP_ALLOWED_HOSTS'),
            allowedOrigins: config.get('MCP_ALLOWED_ORIGINS'),
            // Behind a load balancer (TRUST_PROXY): the lock-out, limits and audit key on the real client.
            ...(env.TRUST_PROXY.length > 0 && { trustProxy: env.TRUST_PROXY }),
            // close_ticket and any other destructive tool run only once a person agreed: the user in
            // the client, or an approver (demo key desk-demo-approver-key) on the dashboard or the API.
            confirmDestructive: true,
            approvals: {
              ...(env.APPROVALS_PUBLIC_URL && { publicUrl: env.APPROVALS_PUBLIC_URL }),
              ...(env.APPROVALS_WEBHOOK_URL && {
                webhook: { url: env.APPROVALS_WEBHOOK_URL, secret: env.APPROVALS_WEBHOOK_SECRET },
              }),
            },
            // A 2026-07-28 client's retry with the input a call asked for may reach any replica that shares it.
            ...(env.MCP_REQUEST_STATE_SECRET && { requestState: { secret: env.MCP_REQUEST_STATE_SECRET } }),
            http: transport === 'http',
            stdio: transport === 'stdio',
            // Who called what, when, with what outcome: every call and refusal, hash-chained.
            audit: auditOptions(env),
            rest: {
              // The REST API (src/support/rest) as tools too, named by their operationIds; each call runs
              // the route's own guard, validation and error filter, behind the host's admission.
              // Over HTTP only: stdio and the CLI run in an application context, with no HTTP stack to run routes on.
              // confirm: the routes marked destructive (closeTicket, deleteTicket) are held for a person's
              // approval like close_ticket (the default policy); createTicket and updateTicket run at once,
              // as create_ticket does: decided, so start-up lists no undecided write.
              ...(transport === 'http' && {
                routes: { tags: ['tickets', 'customers', 'reports'] },
                confirm: { skip: { operationIds: ['createTicket', 'updateTicket'] } },
              }),
              // External REST APIs as tools, from REST_APIS_FILE (none by default; every transport).
              ...(restApis.length > 0 && { apis: restApis }),
            },
            // Upstreams an administrator adds at run time (dashboard, admin API), on every replica.
            virtualServers: transport === 'http' && virtualServersOptions(env),
            // search_tools and call_tool for a catalog too large to list (MCP_TOOL_SEARCH; off by default).
            ...(env.MCP_TOOL_SEARCH !== 'off' && {
              toolSearch: env.MCP_TOOL_SEARCH === 'list-only' ? { listOnly: true } : true,
            }),
            // Other MCP servers beside the desk's own tools, from GATEWAY_UPSTREAMS_FILE (none by default).
            gateway,
            // Policies on arguments and results and guardrails on personal data and secrets, for the
            // desk's tools, its REST routes, other APIs and upstream servers alike (src/governance.config.ts).
            governance: deskGovernance(env),
            // With Redis configured, readiness answers 503 while it cannot be reached.
            healthChecks: redis ? [{ name: 'redis', check: () => redis.ping() }] : [],
            // With Redis, replicas behind a load balancer share sessions, streams, tasks, approvals and
            // subscriptions: any replica serves any request (docs/deployment.md, "Several replicas").
            // A desk over stdio and the CLI share them too: a stdio call's approval is decided on
            // the dashboard of an HTTP replica, or with `desk approvals approve <id>`.
            ...(env.REDIS_URL && { cluster: { backplane: new RedisClusterBackplane(env.REDIS_URL) } }),
          }),
          health: transport === 'http',
          // What these options leave off is not even loaded (a CLI command starts faster for it): the
          // options are only known in the factory, so the module is told here.
          mount: deskMount(transport, env, gateway.upstreams !== undefined, restApis.length > 0),
        }),
        // With DATABASE_URL, customers and tickets live in PostgreSQL, shared by every replica; else in memory.
        SupportModule.register({
          readOnly: env.SUPPORT_READ_ONLY,
          reportStepMs: env.SUPPORT_REPORT_STEP_MS,
          databaseUrl: env.DATABASE_URL,
        }),
        // Calls are limited per principal and per tool; with REDIS_URL all replicas share the counts.
        ThrottlerModule.forRoot({
          throttlers: [{ ttl: env.THROTTLE_TTL_MS, limit: env.THROTTLE_LIMIT }],
          storage: redis ?? new FixedWindowThrottlerStorage(),
        }),
      ],
      // TracingShutdown exports the spans still buffered (OTLP) when the desk shuts down.
      providers: [{ provide: APP_GUARD, useClass: McpThrottlerGuard }, TracingShutdown],
    };
  }
}
