import { Injectable, Logger, Optional, type OnModuleInit } from '@nestjs/common';
import { ApplicationConfig, HttpAdapterHost, ModulesContainer } from '@nestjs/core';
import { McpStartupError, type McpDiagnostic } from '#libs/core';
import { InjectCatalogOptions, JsonSchemaFactory, McpCatalog, type CatalogOptions } from '#libs/catalog';
import { InjectRestOptions, type RestOptions } from '../options/rest.options';
import type { RestOperation } from '../openapi/rest-operation';
import { exploreRoutes } from './route-explorer';
import { exposureOf } from './route-exposure';
import { nestRouteLabel, routeLabel, type NestRoute } from './nest-route';
import type { ExposedRoute } from './rest-tool.registrar';
import type { RestDiagnostic } from '../openapi/rest-diagnostic';

// The bridge's description and registration code, required only once a route is chosen: an
// application that exposes no route loads none of it.
/* eslint-disable @typescript-eslint/no-require-imports */
const bridge = () => ({
  ...(require('./route-operation') as typeof import('./route-operation')),
  ...(require('./swagger-document') as typeof import('./swagger-document')),
  ...(require('./rest-tool.registrar') as typeof import('./rest-tool.registrar')),
  ...(require('../openapi/read-operations') as typeof import('../openapi/read-operations')),
  ...(require('../openapi/route-selection') as typeof import('../openapi/route-selection')),
});
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * The REST bridge at start-up: finds the controller routes chosen for MCP (`@McpExpose`, the
 * `rest.routes` option), describes each as an OpenAPI operation (from `@nestjs/swagger`'s
 * document of the app, or from the route itself) and adds the tools to the catalog. Every
 * problem is reported at once. An application that exposes nothing never loads Swagger.
 */
@Injectable()
export class RestBridgeExplorer implements OnModuleInit {
  private readonly logger = new Logger('McpRest');

  constructor(
    private readonly modules: ModulesContainer,
    private readonly config: ApplicationConfig,
    private readonly schemas: JsonSchemaFactory,
    private readonly catalog: McpCatalog,
    @InjectRestOptions() private readonly options: RestOptions,
    @Optional() @InjectCatalogOptions() private readonly catalogOptions?: CatalogOptions,
    @Optional() private readonly adapterHost?: HttpAdapterHost,
  ) {}

  onModuleInit(): void {
    const include = this.catalogOptions?.include;
    const candidates = exploreRoutes(this.modules, this.config, include).map((route) => ({
      route,
      exposure: exposureOf(route),
    }));
    const { routes: rules } = this.options;
    if (!rules && !candidates.some(({ exposure }) => exposure.marked)) return;
    const { RestToolRegistrar, selectOperations } = bridge();
    const adapter = this.adapterHost?.httpAdapter;
    if (!adapter) {
      this.logger.warn(
        'REST routes are chosen for MCP but the application has no HTTP server (NestFactory.createApplicationContext): ' +
          'they are not exposed. Create the application with NestFactory.create to serve them.',
      );
      return;
    }
    const diagnostics: RestDiagnostic[] = [];
    const describe = this.describer(adapter, include, diagnostics);
    const described = candidates
      .filter(({ exposure }) => exposure.marked !== false)
      .map((candidate) => ({ ...candidate, operation: describe(candidate.route) }));
    const operations = described.map(({ operation }) => operation);
    const { exclude } = this.options;
    const chosen = new Set(rules ? selectOperations(operations, rules).selected : []);
    const excluded = new Set(exclude ? selectOperations(operations, exclude).selected : []);
    const exposed: ExposedRoute[] = described.filter(
      ({ exposure, operation }) => (exposure.marked === true || chosen.has(operation)) && !excluded.has(operation),
    );
    diagnostics.push(...new RestToolRegistrar(this.catalog, this.options).register(exposed, adapter));
    for (const warning of diagnostics.filter(({ severity }) => severity === 'warning'))
      this.logger.warn(`${warning.where}: ${warning.problem} (${warning.fix})`);
    const errors: McpDiagnostic[] = diagnostics.filter(({ severity }) => severity !== 'warning');
    if (errors.length > 0) throw new McpStartupError(errors, 'Cannot expose REST routes as MCP tools');
    this.logger.log(
      `${exposed.length} REST route(s) exposed as MCP tools: ${exposed.map(({ route }) => nestRouteLabel(route)).join(', ')}`,
    );
  }

  /** The operation of a route: Swagger's when it is used (and documents the route), else the route's own. */
  private describer(
    adapter: NonNullable<HttpAdapterHost['httpAdapter']>,
    include: CatalogOptions['include'],
    diagnostics: RestDiagnostic[],
  ): (route: NestRoute) => RestOperation {
    const { routeOperation, swaggerDocument, swaggerInstalled, readOperations } = bridge();
    const { metadata } = this.options;
    const useSwagger = metadata === 'swagger' || (metadata === 'auto' && swaggerInstalled());
    if (!useSwagger) return (route) => routeOperation(route, this.schemas);
    const document = swaggerDocument(this.modules, this.config, adapter, include);
    const { operations, diagnostics: problems } = readOperations(document);
    diagnostics.push(...problems);
    const byRoute = new Map(operations.map((operation) => [routeLabel(operation), operation] as const));
    // A route Swagger leaves out (@ApiExcludeEndpoint) is described from the route itself.
    return (route) => byRoute.get(routeLabel(route)) ?? routeOperation(route, this.schemas);
  }
}
