import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService, type HealthCheckResult, type HealthIndicatorResult } from '@nestjs/terminus';
import { SkipThrottle } from '@nestjs/throttler';
import { DependencyHealth } from './dependency-health';
import { McpHealthIndicator } from './mcp.health';

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
  ) {}

  @Get('live')
  @HealthCheck()
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  @Get('ready')
  @HealthCheck()
  async ready(): Promise<HealthCheckResult> {
    const dependencies = await this.dependencies.check();
    return this.health.check([
      () => this.mcp.check(),
      ...dependencies.map((dependency) => (): HealthIndicatorResult => {
        const indicator = this.indicators.check(dependency.name);
        const details = { ...dependency.details, required: dependency.required, ...(dependency.status === 'degraded' && { degraded: true }), ...(dependency.error && { error: dependency.error }) };
        return dependency.status === 'down' ? indicator.down(details) : indicator.up(details);
      }),
    ]);
  }
}
