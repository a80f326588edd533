import {
  Injectable,
  Logger,
  Optional,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
  type OnModuleInit,
} from '@nestjs/common';
import { PromptRegistry, ResourceRegistry, ToolRegistry } from '#libs/catalog';
import { McpResourceNotifier } from '#libs/resources';
import { HandlerRunner, ToolInvoker } from '#libs/invocation';
import { McpStartupError } from '#libs/core';
import { AuditTrail } from '#libs/security';
import { notification } from '#libs/protocol';
import { HttpEndpointMounter } from './http/http-endpoint.mounter';
import { HostState } from '#libs/protocol';
import type { McpSession } from '#libs/protocol';
import { SessionStore } from '#libs/protocol';
import { StdioTransport } from './stdio/stdio.transport';
import { InjectHostingOptions, type HostingOptions } from './options/hosting.options';

/**
 * Starts and stops the transports with the application: mounts HTTP at init (before Nest
 * closes its router), prepares every tool and opens stdio at bootstrap, then drains in-flight
 * calls and ends sessions and streams at shutdown.
 */
@Injectable()
export class McpHost implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('McpHost');
  private readonly unsubscribers: (() => void)[] = [];

  constructor(
    @InjectHostingOptions() private readonly options: HostingOptions,
    private readonly registry: ToolRegistry,
    private readonly prompts: PromptRegistry,
    private readonly resources: ResourceRegistry,
    private readonly notifier: McpResourceNotifier,
    private readonly invoker: ToolInvoker,
    private readonly runner: HandlerRunner,
    private readonly mounter: HttpEndpointMounter,
    private readonly stdio: StdioTransport,
    private readonly sessions: SessionStore,
    private readonly state: HostState,
    @Optional() private readonly audit?: AuditTrail,
  ) {}

  onModuleInit(): void {
    if (this.options.http) this.mounter.mount();
  }

  async onApplicationBootstrap(): Promise<void> {
    this.invoker.prepareAll(this.registry.all());
    const handlers = [
      ...this.registry.all(),
      ...this.prompts.all(),
      ...this.resources.resources.all(),
      ...this.resources.templates.all(),
    ];
    const problems = await this.runner.prepareAll(handlers);
    if (problems.length > 0) throw new McpStartupError(problems);
    // The trail's sink opens (and finds where its chain stands) before the first call is taken.
    await this.audit?.start();
    const listChanged = (list: string) => () => this.broadcast(notification(`notifications/${list}/list_changed`, {}));
    this.unsubscribers.push(
      this.registry.onChange(listChanged('tools')),
      this.prompts.onChange(listChanged('prompts')),
      this.resources.onChange(listChanged('resources')),
      this.notifier.onUpdated((uri) =>
        this.broadcast(notification('notifications/resources/updated', { uri }), (session) =>
          session.subscriptions.has(uri),
        ),
      ),
    );
    if (this.options.stdio) {
      void this.stdio.connect(process.stdin, process.stdout);
    }
    this.state.phase = 'ready';
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.unsubscribers.forEach((unsubscribe) => unsubscribe());
    const aborted = await this.state.drain(this.options.shutdownTimeoutMs);
    if (aborted > 0)
      this.logger.warn(`${aborted} call(s) still running after ${this.options.shutdownTimeoutMs} ms were aborted`);
    this.sessions.closeAll();
    this.stdio.close();
    // Every record taken, including those of the calls just drained, is written before exit.
    await this.audit?.close(this.options.shutdownTimeoutMs);
    this.state.phase = 'stopped';
  }

  /** Sends a notification that belongs to no request to every session (that `wants` it), stdio's too. */
  private broadcast(message: string, wants: (session: McpSession) => boolean = () => true): void {
    for (const session of this.sessions.live()) {
      if (wants(session)) session.sink?.(message);
    }
  }
}
