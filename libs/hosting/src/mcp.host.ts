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
import { ChangeNotifications, HostState, ListenSubscriptions, SessionStore } from '#libs/protocol';
import { HttpEndpointMounter } from './http/http-endpoint.mounter';
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
    private readonly changes: ChangeNotifications,
    private readonly subscriptions: ListenSubscriptions,
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
    // Sessions and listen subscriptions hear of changes through the one publisher.
    this.unsubscribers.push(
      this.registry.onChange((changed) => this.changes.listChanged('tools', changed)),
      this.prompts.onChange((changed) => this.changes.listChanged('prompts', changed)),
      this.resources.onChange((changed) => this.changes.listChanged('resources', changed)),
      this.notifier.onUpdated((uri) => this.changes.resourceUpdated(uri)),
    );
    if (this.options.stdio) {
      void this.stdio.connect(process.stdin, process.stdout);
    }
    this.state.phase = 'ready';
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.unsubscribers.forEach((unsubscribe) => unsubscribe());
    // Listen streams never end by themselves: each gets its graceful closing before the drain.
    await this.subscriptions.closeAll('host shutting down');
    // Requests in flight are answered (or cancelled with an answer that says so) and recorded
    // before any stream closes: what the trail and the clients were promised is kept.
    const { inFlight, cancelled, unfinished } = await this.state.drain(this.options.shutdownTimeoutMs);
    if (inFlight > 0) this.logger.log(`Drained ${inFlight} request(s) and task run(s) in flight at shutdown`);
    if (cancelled > 0)
      this.logger.warn(
        `${cancelled} call(s) still running after ${this.options.shutdownTimeoutMs} ms (shutdownTimeoutMs) were cancelled and answered so`,
      );
    if (unfinished > 0)
      this.logger.error(`${unfinished} request(s) or task run(s) did not end even after their cancellation`);
    this.sessions.closeAll();
    this.stdio.close();
    // Every record taken, including those of the calls just drained, is written before exit.
    await this.audit?.close(this.options.shutdownTimeoutMs);
    this.state.phase = 'stopped';
  }
}
