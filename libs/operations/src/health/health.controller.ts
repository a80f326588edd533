import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import {
  HealthCheck,
  HealthCheckService,
  HealthIndicatorService,
  type HealthCheckResult,
  type HealthIndicatorResult,
} from '@nestjs/terminus';
import { SkipThrottle } from '@nestjs/throttler';
import { DependencyHealth } from './dependency-health';
import { McpHealthIndicator } from './mcp.health';
import { HostState } from '#libs/protocol';

/**
 * Kubernetes-style probes in terminus shapes: `live` answers while the process can serve
 * HTTP at all (a stuck event loop cannot answer, so the probe times out); `ready` answers 503
 * while the host is starting or draining, or a required dependency (a fail-closed audit sink,
 * a `healthChecks` entry) is down.
 */
/**
 * Terminus's default `@HealthCheck()` loads `@nestjs/swagger` (~115 ms of start-up) whenever it is
 * installed, to document the probes in an OpenAPI document they do not belong to.
 */
const HealthProbe = () => HealthCheck({ noCache: true, swaggerDocumentation: false });

// Probes are never throttled: a throttler whose store is down must not turn readiness into a 500.
@SkipThrottle()
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly mcp: McpHealthIndicator,
    private readonly dependencies: DependencyHealth,
    private readonly indicators: HealthIndicatorService,
    private readonly state: HostState,
  ) {}

  @Get('live')
  @HealthProbe()
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  @Get('ready')
  @HealthProbe()
  async ready(): Promise<HealthCheckResult> {
    const results = await this.results();
    // Going away is no failure: answered in terminus's shape without its ERROR log, once per probe.
    if (this.state.phase === 'draining' || this.state.phase === 'stopped') throw shuttingDown(results);
    return this.health.check(results.map((result) => () => result));
  }

  /** The host's own indicator, then one per dependency. */
  private async results(): Promise<HealthIndicatorResult[]> {
    const dependencies = await this.dependencies.check();
    return [
      this.mcp.check(),
      ...dependencies.map((dependency): HealthIndicatorResult => {
        const indicator = this.indicators.check(dependency.name);
        const details = {
          ...dependency.details,
          required: dependency.required,
          ...(dependency.status === 'degraded' && { degraded: true }),
          ...(dependency.error && { error: dependency.error }),
        };
        return dependency.status === 'down' ? indicator.down(details) : indicator.up(details);
      }),
    ];
  }
}

/**
 * The 503 of a host that is draining (or stopped), in terminus's shape with its own word for it
 * (`shutting_down`): load balancers and operators can tell a host going away from a broken one.
 */
function shuttingDown(results: readonly HealthIndicatorResult[]): ServiceUnavailableException {
  const info: HealthIndicatorResult = {};
  const error: HealthIndicatorResult = {};
  for (const result of results)
    for (const [key, value] of Object.entries(result)) (value.status === 'up' ? info : error)[key] = value;
  return new ServiceUnavailableException({ status: 'shutting_down', info, error, details: { ...info, ...error } });
}
