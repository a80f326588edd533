import type { McpPrincipal } from '#libs/core';
import { META_KEYS } from '../eras/request-envelope';
import { notification, type JsonRpcId } from '../wire/json-rpc';
import type { SubscriptionFilter } from './subscription-filter';

/** How a subscription ended: the client let go of it, or the host ended it (e.g. at shutdown). */
export type SubscriptionEnd = { by: 'client'; reason: string } | { by: 'host'; reason: string };

/**
 * One open `subscriptions/listen` stream: who opened it, what it agreed to deliver, and where its
 * messages go (the request's SSE response, or stdout). Every message it sends carries the
 * subscription's id (the listen request's JSON-RPC id) in `_meta`.
 */
export class ListenSubscription {
  private resolveEnd!: (end: SubscriptionEnd) => void;
  private over = false;
  /** Settles once, when the subscription ends. */
  readonly ended = new Promise<SubscriptionEnd>((resolve) => (this.resolveEnd = resolve));

  constructor(
    /** The JSON-RPC id of the listen request: the subscription's id. */
    readonly id: JsonRpcId,
    readonly principal: McpPrincipal,
    /** The capabilities the client declared in the listen request's `_meta`. */
    readonly clientCapabilities: Readonly<Record<string, unknown>>,
    /** What the host agreed to deliver (the acknowledged filter). */
    readonly filter: Readonly<SubscriptionFilter>,
    private readonly send: (message: string) => boolean,
  ) {}

  get open(): boolean {
    return !this.over;
  }

  /** The `_meta` every message of this subscription carries. */
  get meta(): Record<string, unknown> {
    return { [META_KEYS.subscriptionId]: this.id };
  }

  /**
   * Sends a notification on the stream, tagged with the subscription id (merged into any `_meta`
   * it has). Returns false when it could not be delivered (the subscription ended, or its
   * transport cannot carry it).
   */
  notify(method: string, params: Record<string, unknown> = {}): boolean {
    if (this.over) return false;
    const meta = typeof params._meta === 'object' && params._meta !== null ? params._meta : {};
    return this.send(notification(method, { ...params, _meta: { ...meta, ...this.meta } }));
  }

  /**
   * Ends the subscription. Ended by the host, it says so first (`notifications/cancelled` for the
   * listen id, the one use the spec allows a server) and the listen request then answers; let go
   * of by the client, it goes unanswered.
   */
  end(end: SubscriptionEnd): void {
    if (this.over) return;
    if (end.by === 'host') this.notify('notifications/cancelled', { requestId: this.id, reason: end.reason });
    this.over = true;
    this.resolveEnd(end);
  }
}
