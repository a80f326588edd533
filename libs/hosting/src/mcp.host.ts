import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnModuleInit,
} from '@nestjs/common';
import { ToolRegistry } from '#libs/catalog';
import { ToolInvoker } from '#libs/invocation';
import { notification } from './dispatch/json-rpc';
import { HttpEndpointMounter } from './http/http-endpoint.mounter';
import { HostState } from './lifecycle/host-state';
import { MCP_RESOLVED_OPTIONS, type ResolvedMcpOptions } from './options/resolved-options';
import { SessionStore } from './session/session.store';
import { StdioTransport } from './stdio/stdio.transport';

/**
 * Starts and stops the transports with the application: mounts HTTP at init (before Nest
 * closes its router), prepares every tool and opens stdio at bootstrap, then drains in-flight
 * calls and ends sessions and streams at shutdown.
 */
@Injectable()
export class McpHost implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('McpHost');
  private unsubscribe: (() => void) | undefined;

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    private readonly registry: ToolRegistry,
    private readonly invoker: ToolInvoker,
    private readonly mounter: HttpEndpointMounter,
    private readonly stdio: StdioTransport,
    private readonly sessions: SessionStore,
    private readonly state: HostState,
  ) {}

  onModuleInit(): void {
    if (this.options.http) this.mounter.mount();
  }

  onApplicationBootstrap(): void {
    this.invoker.prepareAll(this.registry.all());
    this.unsubscribe = this.registry.onChange(() => this.broadcast(notification('notifications/tools/list_changed', {})));
    if (this.options.stdio) {
      void this.stdio.connect(process.stdin, process.stdout);
    }
    this.state.phase = 'ready';
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.unsubscribe?.();
    const aborted = await this.state.drain(this.options.shutdownTimeoutMs);
    if (aborted > 0) this.logger.warn(`${aborted} call(s) still running after ${this.options.shutdownTimeoutMs} ms were aborted`);
    this.sessions.closeAll();
    this.stdio.close();
    this.state.phase = 'stopped';
  }

  private broadcast(message: string): void {
    for (const session of this.sessions.all()) session.sink?.(message);
    this.stdio.broadcast(message);
  }
}
