import type { DynamicModule, Provider, Type } from '@nestjs/common';
import { McpStartupError } from '#libs/core';
import { AdminAccess } from './access/admin-access';
import { AdminApi } from './admin/admin-api';
import { AdminCatalogReader } from './admin/admin-catalog.reader';
import { AdminRoutes } from './admin/admin-routes';
import { AdminEndpoint } from './admin/admin.endpoint';
import { CALL_HISTORY_PROVIDER, CALL_STATS_PROVIDER } from './admin/admin.providers';
import { ReplicaCharts } from './admin/replica-charts';
import { ApprovalEvents } from './approvals/approval-events';
import { McpApprovals } from './approvals/mcp-approvals';
import { ApprovalsHttpApi } from './admin/approvals-http.api';
import { StdioApprovalServer } from './admin/stdio-approval.server';
import { DependencyHealth } from './health/dependency-health';
import { METRICS_PROVIDER } from './metrics/mcp-metrics.provider';
import { McpMetricsEndpoint } from './metrics/metrics.endpoint';
import { OperationsMessages } from './operations.messages';
import { MCP_OPERATIONS_OPTIONS, type OperationsOptions } from './options/operations.options';

/** Which operations parts `McpModule` mounts; what is off is not in the module at all. */
export interface OperationsSwitches {
  /** `/health/live` and `/health/ready` (terminus). */
  health: boolean;
  /** The admin dashboard, its JSON API and the approvals API. */
  admin: boolean;
  /** The Prometheus metrics endpoint. */
  metrics: boolean;
}

/** What `McpModule` adds to its definition for the operations parts that are on. */
export interface OperationsParts {
  imports: NonNullable<DynamicModule['imports']>;
  controllers: Type[];
  providers: Provider[];
}

/** Token of a check that runs at start-up: the options turn on no part the module left out. */
const OPERATIONS_PARTS_CHECK = Symbol('MCP:OPERATIONS_PARTS_CHECK');

/**
 * The providers, controllers and imports of the operations parts that are on. What is always
 * there is cheap and public (`DependencyHealth`, `McpApprovals`, `McpMetrics` and `McpCallStats`,
 * which count nothing unless their part is on); the health probes are required
 * only when mounted, so `@nestjs/terminus` is not loaded otherwise.
 *
 * `McpModule.forRoot` decides the switches from its options; `forRootAsync` cannot (its options
 * come later), so it takes them from the `mount` extra, and a start-up check refuses options that
 * turn on a part left out, saying how to fix it.
 *
 * @internal for the hosting library
 * @example
 * ```ts
 * const parts = operationsParts({ health: true, admin: false, metrics: true });
 * return { ...definition, imports: [...parts.imports], controllers: parts.controllers, providers: [...parts.providers] };
 * ```
 */
export function operationsParts(on: OperationsSwitches): OperationsParts {
  const health = on.health
    ? // eslint-disable-next-line @typescript-eslint/no-require-imports
      (require('./health/health.parts') as typeof import('./health/health.parts')).HEALTH_PARTS
    : undefined;
  return {
    imports: [...(health?.imports ?? [])],
    controllers: [...(health?.controllers ?? [])],
    providers: [
      DependencyHealth,
      // Approval requests of confirmed calls: audited, and announced to the approvals webhook.
      ApprovalEvents,
      McpApprovals,
      // The approvals API (dashboard, stdio page), and the page of a host without HTTP (which
      // listens only when the options say so).
      ApprovalsHttpApi,
      StdioApprovalServer,
      AdminAccess,
      // The admin API's routes, the dashboard's and other features' (virtual servers): every write audited.
      AdminRoutes,
      CALL_STATS_PROVIDER,
      METRICS_PROVIDER,
      ...(health?.providers ?? []),
      // The admin dashboard (`admin` option): page, JSON API and approvals API.
      ...(on.admin ? [CALL_HISTORY_PROVIDER, ReplicaCharts, AdminCatalogReader, AdminApi, AdminEndpoint] : []),
      // The metrics endpoint shares the admin API's access rules (AdminAccess).
      ...(on.metrics ? [McpMetricsEndpoint] : []),
      {
        provide: OPERATIONS_PARTS_CHECK,
        useFactory: (options: OperationsOptions) => checkParts(options, on),
        inject: [MCP_OPERATIONS_OPTIONS],
      },
    ],
  };
}

/** Refuses options that need a part the module was defined without. */
function checkParts(options: OperationsOptions, on: OperationsSwitches): true {
  const missing = [
    ...(options.admin && options.http && !on.admin ? (['admin'] as const) : []),
    ...(options.metrics && !on.metrics ? (['metrics'] as const) : []),
  ];
  if (missing.length > 0)
    throw new McpStartupError(
      missing.map((part) => ({ where: `McpModule option "${part}"`, ...OperationsMessages.partLeftOut(part) })),
    );
  return true;
}
