import { Injectable } from '@nestjs/common';
import type { HttpAdapterHost } from '@nestjs/core';
import { httpPlatformOf, type McpCallContext } from '#libs/core';
import { McpCatalog } from '#libs/catalog';
import { InjectRestOptions, type RestOptions } from '../options/rest.options';
import type { RestOperation, RestToolDefinition } from '../openapi/rest-operation';
import { mapOperations } from '../openapi/tool-mapping';
import { toRequestParts } from '../openapi/request-parts';
import type { RestDiagnostic } from '../openapi/rest-diagnostic';
import { nestRouteLabel, routeLabel, type NestRoute } from './nest-route';
import { runInProcess } from '../execution/in-process-request';
import { toToolResult } from '../execution/http-outcome';
import type { RouteExposure } from './route-exposure';
import { addRestTool, toolOptionsOf } from '../registration/catalog-entry';
import { WriteConfirmations } from '../registration/write-confirmation';

type HttpAdapter = NonNullable<HttpAdapterHost['httpAdapter']>;

/** A route chosen for exposure, with its OpenAPI operation. */
export interface ExposedRoute {
  readonly route: NestRoute;
  readonly exposure: RouteExposure;
  readonly operation: RestOperation;
}

/**
 * Adds the tools of the exposed routes to the catalog: the mapped definition with the route's
 * `@McpExpose` overrides, the confirmation `rest.confirm` decides for it, the route's
 * `@RequireScopes` / `@Roles` as the entry's access, the controller method it runs (`runs`: what
 * is declared on it governs the tool), and a handler that runs the route in process through the
 * application's HTTP stack.
 */
@Injectable()
export class RestToolRegistrar {
  constructor(
    private readonly catalog: McpCatalog,
    @InjectRestOptions() private readonly options: RestOptions,
  ) {}

  /**
   * @returns every problem met (name clashes, invalid schemas, writes whose confirmation nothing
   * decided); the routes without an error are added
   */
  register(exposed: readonly ExposedRoute[], adapter: HttpAdapter): RestDiagnostic[] {
    // The calls run in process; on Fastify that needs a hook added now, before the app listens.
    httpPlatformOf(adapter).acceptInProcessRequests();
    const names: Record<string, string> = {};
    // By operationId: two routes may share a method and path (versioned by header).
    for (const { route, exposure, operation } of exposed)
      if (exposure.overrides.name) names[operation.operationId ?? routeLabel(route)] = exposure.overrides.name;
    const { tools, diagnostics } = mapOperations(
      exposed.map(({ operation }) => operation),
      { prefix: this.options.prefix, names },
    );
    const routeOf = new Map(exposed.map((item) => [item.operation, item] as const));
    const confirmations = new WriteConfirmations(
      this.options.confirm,
      tools.map(({ operation }) => operation),
    );
    for (const definition of tools) {
      const { route, exposure } = routeOf.get(definition.operation)!;
      const options = toolOptionsOf(definition, exposure.overrides);
      const { confirm } = confirmations.decide(
        definition.operation,
        options.annotations ?? {},
        exposure.overrides.confirm,
      );
      if (confirm !== undefined) options.confirm = confirm;
      const handler = this.handlerOf(adapter, definition, route.versionHeaders);
      const access = {
        scopes: exposure.scopes,
        roles: exposure.roles,
        route: nestRouteLabel(route),
        origin: { kind: 'rest' as const },
        // What the route's method declares (`@McpPolicy`) governs its tool too.
        runs: { hostClass: route.controller, methodName: route.methodName },
      };
      diagnostics.push(...addRestTool(this.catalog, options, handler, access));
    }
    const undecided = confirmations.report(
      'rest.confirm',
      '@McpExpose({ confirm: true }) on the route to confirm it or { confirm: false } to let it run',
    );
    return [...diagnostics, ...confirmations.unmatchedRules('rest.confirm'), ...(undecided ? [undecided] : [])];
  }

  /** The tool's handler: what each call needs of the route is worked out once, here. */
  private handlerOf(
    adapter: HttpAdapter,
    definition: RestToolDefinition,
    versionHeaders: Readonly<Record<string, string>> | undefined,
  ) {
    const resultOptions = {
      wrapsResult: definition.wrapsResult,
      operationLabel: routeLabel(definition.operation),
      arguments: definition.arguments,
    };
    return async (args: Record<string, unknown>, context: McpCallContext): Promise<unknown> => {
      const requested = toRequestParts(definition, args);
      // The route's version header is the route's, not the caller's to choose.
      const parts = versionHeaders ? { ...requested, headers: { ...requested.headers, ...versionHeaders } } : requested;
      const outcome = await runInProcess(adapter, parts, {
        user: this.options.user(context.caller),
        signal: context.signal,
        ...(context.remoteAddress && { remoteAddress: context.remoteAddress }),
      });
      return toToolResult(outcome, resultOptions);
    };
  }
}
