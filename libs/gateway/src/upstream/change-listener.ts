import type { Logger } from '@nestjs/common';
import type { Client, McpSubscription, SubscriptionFilter } from '@modelcontextprotocol/client';

/** How long a dropped stream waits before it is opened again. */
const RELISTEN_DELAY_MS = 1_000;

/**
 * A 2026-07-28 upstream's change notifications, which it sends only on a `subscriptions/listen`
 * stream: one stream asking for the lists the upstream says can change and for the resources
 * the gateway's clients subscribed to. The SDK client hands what arrives on it to the same
 * notification handlers a 2025 upstream's notifications reach. A stream the upstream drops is
 * opened again; a new resource re-opens it with the URI added (the new stream first, so no
 * update falls between the two).
 */
export class ChangeListener {
  private subscription: McpSubscription | undefined;
  private readonly uris = new Set<string>();
  private queue: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly client: Client,
    private readonly timeoutMs: number,
    private readonly logger: Logger,
  ) {}

  /**
   * Opens the stream, or opens it again with `uri` among the resources it asks for. Resolves
   * once the upstream acknowledged it (or refused: that is logged). Never rejects.
   */
  listen(uri?: string): Promise<void> {
    if (uri !== undefined) {
      if (this.uris.has(uri)) return this.queue;
      this.uris.add(uri);
    }
    this.queue = this.queue.then(() => this.open());
    return this.queue;
  }

  /** Closes the stream for good. */
  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    const subscription = this.subscription;
    this.subscription = undefined;
    await subscription?.close();
  }

  private async open(): Promise<void> {
    if (this.stopped) return;
    const previous = this.subscription;
    const filter = this.filter();
    if (!filter) return;
    try {
      const subscription = await this.client.listen(filter, { timeout: this.timeoutMs });
      if (this.stopped) return void (await subscription.close());
      this.subscription = subscription;
      void subscription.closed.then((how) => {
        if (how === 'local' || this.stopped || this.subscription !== subscription) return;
        this.logger.warn(`the change stream ended (${how}); opening it again`);
        clearTimeout(this.timer);
        this.timer = setTimeout(() => void this.listen(), RELISTEN_DELAY_MS).unref();
      });
    } catch (error) {
      this.logger.warn(`cannot listen for changes: ${(error as Error).message}`);
      return;
    }
    await previous?.close();
  }

  /** What to ask for: the lists the upstream says can change, and the subscribed resources. */
  private filter(): SubscriptionFilter | undefined {
    const capabilities = this.client.getServerCapabilities() ?? {};
    const filter: SubscriptionFilter = {
      ...(capabilities.tools?.listChanged && { toolsListChanged: true }),
      ...(capabilities.prompts?.listChanged && { promptsListChanged: true }),
      ...(capabilities.resources?.listChanged && { resourcesListChanged: true }),
      ...(this.uris.size > 0 && { resourceSubscriptions: [...this.uris] }),
    };
    return Object.keys(filter).length > 0 ? filter : undefined;
  }
}
