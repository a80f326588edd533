import { Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { ToolRegistry } from '#libs/catalog';
import { HostState } from '#libs/protocol';
import { SessionStore } from '#libs/protocol';

/** Terminus indicator of the MCP host: its phase, the catalog it serves, sessions and calls. */
@Injectable()
export class McpHealthIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly state: HostState,
    private readonly registry: ToolRegistry,
    private readonly sessions: SessionStore,
  ) {}

  check(): HealthIndicatorResult<'mcp'> {
    const indicator = this.indicators.check('mcp');
    const details = {
      phase: this.state.phase,
      tools: this.registry.size,
      sessions: this.sessions.size,
      inFlight: this.state.inFlight,
    };
    return this.state.accepting ? indicator.up(details) : indicator.down(details);
  }
}
