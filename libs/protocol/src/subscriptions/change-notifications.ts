import { Injectable } from '@nestjs/common';
import { ResourceRegistry, type RegisteredHandler } from '#libs/catalog';
import { AccessControl } from '../admission/access-control';
import type { McpSession } from '../sessions/mcp-session';
import { SessionStore } from '../sessions/session.store';
import { notification } from '../wire/json-rpc';
import { ListenSubscriptions } from './listen-subscriptions';
import { LIST_FLAGS, type ListName } from './subscription-filter';

/**
 * The one publisher of the host's change notifications — a list of the catalog changed, a
 * resource was updated — with two kinds of subscribers:
 *
 * - 2025-era sessions: every opened session's standalone stream (the GET stream, or stdout)
 *   hears of list changes, and of updates to the URIs it subscribed to (`resources/subscribe`
 *   checked the caller's access then);
 * - 2026-07-28 `subscriptions/listen` streams: only what they opted in to, and only what their
 *   principal may see — a list change when one of the changed entries is visible to it, an
 *   update when it may read the resource now.
 */
@Injectable()
export class ChangeNotifications {
  constructor(
    private readonly sessions: SessionStore,
    private readonly subscriptions: ListenSubscriptions,
    private readonly resources: ResourceRegistry,
    private readonly access: AccessControl,
  ) {}

  /** `list` changed: `changed` are the entries added, removed, enabled or disabled. */
  listChanged(list: ListName, changed: readonly RegisteredHandler[]): void {
    const method = `notifications/${list}/list_changed`;
    this.toSessions(notification(method, {}));
    const flag = LIST_FLAGS[list];
    this.subscriptions.publish(
      method,
      {},
      (subscription) =>
        subscription.filter[flag] === true &&
        changed.some((entry) => this.access.allows(subscription.principal, entry)),
    );
  }

  /** The resource at `uri` changed (`McpResourceNotifier.resourceUpdated`). */
  resourceUpdated(uri: string): void {
    this.toSessions(notification('notifications/resources/updated', { uri }), (session) =>
      session.subscriptions.has(uri),
    );
    const resolved = this.resources.resolve(uri);
    if (!resolved) return;
    this.subscriptions.publish(
      'notifications/resources/updated',
      { uri },
      (subscription) =>
        subscription.filter.resourceSubscriptions?.includes(uri) === true &&
        this.access.allows(subscription.principal, resolved.handler),
    );
  }

  /** Sends a notification that belongs to no request to every opened session (that `wants` it), stdio's too. */
  private toSessions(message: string, wants: (session: McpSession) => boolean = () => true): void {
    for (const session of this.sessions.live()) {
      if (session.opened && wants(session)) session.sink?.(message);
    }
  }
}
