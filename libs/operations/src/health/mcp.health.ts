import { Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { ToolRegistry } from '#libs/catalog';
import { HostState } from '#libs/protocol';
import { SessionStore } from '#libs/protocol';
import { InjectOperationsOptions, type OperationsOptions } from '../options/operations.options';

/**
 * Terminus indicator of the MCP host: which replica answers (the `replica` option), its phase,
 * the catalog it serves, sessions and calls.
 */
@Injectable()
export class McpHealthIndicator {
  constructor(
    @InjectOperationsOptions() private readonly options: OperationsOptions,
    private readonly indicators: HealthIndicatorService,
    private readonly state: HostState,
    private readonly registry: ToolRegistry,
    private readonly sessions: SessionStore,
  ) {}

  check(): HealthIndicatorResult<'mcp'> {
    const indicator = this.indicators.check('mcp');
    const details = {
      // Behind a load balancer, tells which replica a probe (or an operator's curl) reached.
      replica: this.options.replica,
      phase: this.state.phase,
      tools: this.registry.size,
      sessions: this.sessions.size,
      inFlight: this.state.inFlight,
    };
    return this.state.accepting ? indicator.up(details) : indicator.down(details);
  }
}
