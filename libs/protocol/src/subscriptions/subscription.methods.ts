import { Injectable } from '@nestjs/common';
import { ANONYMOUS_PRINCIPAL, JsonRpcError, JsonRpcErrorCode } from '#libs/core';
import { ResourceRegistry } from '#libs/catalog';
import { CallCancellation } from '#libs/invocation';
import { Authenticator } from '#libs/security';
import { AccessControl } from '../admission/access-control';
import { StatelessCalls } from '../calls/stateless-calls';
import type { RequestNote } from '../events/request-note';
import type { McpMethods } from '../methods/method-handler';
import type { McpRequest } from '../requests/mcp-request';
import type { ReplyChannel } from '../requests/reply-channel';
import { InjectProtocolOptions, type ProtocolOptions } from '../options/protocol.options';
import { RequestLimitError } from '../wire/request-limits';
import { ListenSubscription } from './listen-subscription';
import { ListenSubscriptions, type McpSubscriber } from './listen-subscriptions';
import { LIST_FLAGS, readSubscriptionFilter, type SubscriptionFilter } from './subscription-filter';

/**
 * `subscriptions/listen` (2026-07-28): a request whose answer is a long-lived stream. The host
 * acknowledges what it agrees to deliver (`notifications/subscriptions/acknowledged`, the first
 * message), then sends the change notifications the client opted in to until the client lets go
 * (closes the stream on HTTP, or sends `notifications/cancelled` for the listen id on stdio: no
 * answer then) or the host ends it (shutdown: `notifications/cancelled` for the listen id, then
 * the listen request's result).
 *
 * Resource URIs are agreed only when they name a resource the caller may read; others are left
 * out of the acknowledgement, exactly as URIs that match nothing (a hidden resource stays hidden).
 */
@Injectable()
export class SubscriptionMethods implements McpMethods {
  readonly methods: McpMethods['methods'] = {
    'subscriptions/listen': (request, reply, note) => this.listen(request, reply, note),
  };

  constructor(
    @InjectProtocolOptions() private readonly options: ProtocolOptions,
    private readonly subscriptions: ListenSubscriptions,
    private readonly resources: ResourceRegistry,
    private readonly access: AccessControl,
    private readonly stateless: StatelessCalls,
    private readonly authenticator: Authenticator,
  ) {}

  private async listen(request: McpRequest, reply: ReplyChannel, note: RequestNote): Promise<string> {
    const id = request.id!;
    const requested = readSubscriptionFilter(request.params);
    const owner = this.ownerOf(request);
    this.subscriptions.checkRoom(owner);
    // The client lets go by closing the stream (HTTP) or by cancelling the listen request; watched
    // from the start, so that a client gone while the filter was acknowledged is not kept.
    const cancellation = new CallCancellation();
    const stopWatching = reply.onLost?.((reason) => cancellation.cancel(reason));
    const forget = this.stateless.add(request.principal.id, id, cancellation);
    try {
      const subscriber: McpSubscriber = {
        id,
        principal: request.principal,
        clientCapabilities: request.session.clientCapabilities ?? {},
        request,
      };
      const filter = await this.acknowledge(requested, subscriber);
      if (cancellation.isCancelled) return this.unanswered(note);
      const subscription = new ListenSubscription(
        id,
        request.principal,
        subscriber.clientCapabilities,
        filter,
        (message) => reply.send(message),
      );
      if (!subscription.notify('notifications/subscriptions/acknowledged', { notifications: filter }))
        throw new JsonRpcError(
          JsonRpcErrorCode.INVALID_REQUEST,
          'subscriptions/listen answers with a stream of events: send "Accept: text/event-stream"',
          undefined,
          406,
        );
      this.subscriptions.add(subscription, owner);
      cancellation.signal.addEventListener(
        'abort',
        () =>
          subscription.end({ by: 'client', reason: (cancellation.cause as Error | undefined)?.message ?? 'cancelled' }),
        { once: true },
      );
      const end = await subscription.ended;
      if (end.by === 'client') return this.unanswered(note);
      return JSON.stringify({ resultType: 'complete', _meta: subscription.meta });
    } finally {
      forget();
      stopWatching?.();
    }
  }

  /** Nothing answers a subscription the client let go of. */
  private unanswered(note: RequestNote): string {
    note.withdrawn = true;
    return '{}';
  }

  /** What the host agrees to deliver: the standard fields it serves, and the extensions' own. */
  private async acknowledge(requested: SubscriptionFilter, subscriber: McpSubscriber): Promise<SubscriptionFilter> {
    const agreed: Record<string, unknown> = {};
    for (const flag of Object.values(LIST_FLAGS)) if (requested[flag] === true) agreed[flag] = true;
    if (requested.resourceSubscriptions) {
      const max = this.options.sessions.maxSubscriptions;
      if (requested.resourceSubscriptions.length > max)
        throw new RequestLimitError(
          `Too many resource subscriptions: at most ${max} URIs per subscription (maxSubscriptionsPerSession)`,
        );
      agreed.resourceSubscriptions = [...new Set(requested.resourceSubscriptions)].filter((uri) => {
        const resolved = this.resources.resolve(uri);
        return resolved !== undefined && this.access.allows(subscriber.principal, resolved.handler);
      });
    }
    for (const [field, topic] of this.subscriptions.topics) {
      if (requested[field] === undefined) continue;
      const value: unknown = await topic.acknowledge(requested[field], subscriber);
      if (value !== undefined) agreed[field] = value;
    }
    return agreed;
  }

  /**
   * What the per-principal limit counts a subscription against: the principal, or the client's
   * address (through the trusted proxies) when the host does not authenticate — every caller is
   * then the same principal, so one client's streams must not use up everyone's room — and for
   * an anonymous caller.
   */
  private ownerOf({ principal, transport, remoteAddress }: McpRequest): string {
    const anonymous = principal === ANONYMOUS_PRINCIPAL || principal.id === ANONYMOUS_PRINCIPAL.id;
    return anonymous || (transport === 'http' && this.authenticator.mode === 'none')
      ? `address:${remoteAddress ?? transport}`
      : `principal:${principal.id}`;
  }
}
