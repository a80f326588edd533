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
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  @Get('ready')
  @HealthCheck()
  async ready(): Promise<HealthCheckResult> {
    try {
      return await this.check();
    } catch (error) {
      // While draining (or stopped), the probe says so in terminus's own words: load balancers and
      // operators can tell a host that is going away from one that is broken.
      if (
        error instanceof ServiceUnavailableException &&
        (this.state.phase === 'draining' || this.state.phase === 'stopped')
      ) {
        throw new ServiceUnavailableException({
          ...(error.getResponse() as HealthCheckResult),
          status: 'shutting_down',
        });
      }
      throw error;
    }
  }

  private async check(): Promise<HealthCheckResult> {
    const dependencies = await this.dependencies.check();
    return this.health.check([
      () => this.mcp.check(),
      ...dependencies.map((dependency) => (): HealthIndicatorResult => {
        const indicator = this.indicators.check(dependency.name);
        const details = {
          ...dependency.details,
          required: dependency.required,
          ...(dependency.status === 'degraded' && { degraded: true }),
          ...(dependency.error && { error: dependency.error }),
        };
        return dependency.status === 'down' ? indicator.down(details) : indicator.up(details);
      }),
    ]);
  }
}
