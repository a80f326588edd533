import { Injectable, Logger, Optional } from '@nestjs/common';
import { McpCluster } from '#libs/cluster';

/**
 * Tells subscribed clients that a resource changed (`notifications/resources/updated`).
 * Inject it where the data changes. With replicas sharing state (the `cluster` option) the
 * clients subscribed through any replica are told, whichever replica the change happened on.
 *
 * @example
 * ```ts
 * constructor(private readonly notifier: McpResourceNotifier) {}
 * publish(article: Article) {
 *   this.store.save(article);
 *   this.notifier.resourceUpdated(`kb://articles/${article.slug}`);
 * }
 * ```
 */
@Injectable()
export class McpResourceNotifier {
  private readonly listeners = new Set<(uri: string) => void>();
  private readonly subscribers = new Set<(uri: string) => void | Promise<void>>();

  constructor(@Optional() private readonly cluster?: McpCluster) {
    cluster?.on('resource-updated', ({ uri }) => {
      if (typeof uri === 'string') this.tell(uri);
    });
  }

  resourceUpdated(uri: string): void {
    if (!this.cluster?.enabled) return this.tell(uri);
    // Every replica (this one too) tells the clients whose streams it holds.
    this.cluster.broadcast({ type: 'resource-updated', uri }).catch((error: Error) => {
      new Logger('McpResourceNotifier').warn(`cannot tell the other replicas that ${uri} changed: ${error.message}`);
      this.tell(uri);
    });
  }

  private tell(uri: string): void {
    for (const listener of this.listeners) listener(uri);
  }

  /**
   * @internal A client subscribed to `uri` (`resources/subscribe`): a resource served from
   * elsewhere (the gateway's upstreams) subscribes there, so that its updates reach the client.
   * Resolves once every listener has, so that the client's subscription is answered only when
   * it is in place everywhere (an update right after it is not missed).
   */
  async subscribed(uri: string): Promise<void> {
    await Promise.all([...this.subscribers].map((listener) => listener(uri)));
  }

  /** @internal Hears of every `resources/subscribe` that was accepted; a promise returned is awaited. */
  onSubscribed(listener: (uri: string) => void | Promise<void>): () => void {
    this.subscribers.add(listener);
    return () => this.subscribers.delete(listener);
  }

  /** @internal Used by the hosting module to reach the subscribed sessions. */
  onUpdated(listener: (uri: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
