import { Injectable, Optional } from '@nestjs/common';
import { InjectResourceUpdates, type ResourceUpdates } from './updates/resource-updates';
import { LocalResourceUpdates } from './updates/local-resource-updates';

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
  private readonly subscribers = new Set<(uri: string) => void | Promise<void>>();

  /** @param updates how the word gets around (this process's listeners by default) */
  constructor(
    @Optional() @InjectResourceUpdates() private readonly updates: ResourceUpdates = new LocalResourceUpdates(),
  ) {}

  /** Tells the clients subscribed to `uri`, through any replica, that it changed. */
  resourceUpdated(uri: string): void {
    this.updates.publish(uri);
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

  /** @internal Used by the hosting module to reach the subscribed sessions (those this replica holds). */
  onUpdated(listener: (uri: string) => void): () => void {
    return this.updates.onUpdated(listener);
  }
}
