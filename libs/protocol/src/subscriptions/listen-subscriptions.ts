import { Injectable, Logger } from '@nestjs/common';
import type { McpPrincipal } from '#libs/core';
import type { McpRequest } from '../requests/mcp-request';
import { InjectProtocolOptions, type ProtocolOptions } from '../options/protocol.options';
import { RequestLimitError } from '../wire/request-limits';
import type { ListenSubscription } from './listen-subscription';

/** Who opens a subscription, as a filter field of an extension sees it. */
export interface McpSubscriber {
  /** The listen request's JSON-RPC id (the subscription's id). */
  readonly id: string | number;
  readonly principal: McpPrincipal;
  /** The capabilities the client declared in the listen request's `_meta` (extensions under `extensions`). */
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  /** The listen request, for what needs more of it (its session made from `_meta`, its transport). */
  readonly request: McpRequest;
}

/**
 * A field of the `subscriptions/listen` filter that an extension serves, beside the standard
 * ones (the tasks extension's `taskIds`): what the host agrees to deliver for the value a client
 * asked for. Register it with `ListenSubscriptions.addTopic`.
 */
export interface McpSubscriptionTopic {
  /** The filter field, e.g. `taskIds`. */
  readonly field: string;
  /**
   * The value the acknowledgement carries for `requested` (what this subscription will receive),
   * or `undefined` to leave the field out. May throw (or reject with) a `JsonRpcError` to refuse
   * the whole subscription (e.g. `-32021` when the client did not declare the extension).
   */
  acknowledge(requested: unknown, subscriber: McpSubscriber): unknown;
}

/**
 * The open `subscriptions/listen` streams of 2026-07-28 clients, and the one way to reach them:
 * `publish` sends a notification to every subscription a predicate picks (the host's own change
 * notifications come through `ChangeNotifications`; an extension publishes its own, e.g.
 * `notifications/tasks` to the subscriptions whose `filter.taskIds` name the task). The number
 * of open subscriptions is bounded like sessions: `maxSessions` in all, `maxSessionsPerPrincipal`
 * per principal (per client address for anonymous callers, and for every HTTP caller of a host
 * without authentication).
 *
 * @example
 * ```ts
 * // an extension serving `taskIds`
 * subscriptions.addTopic({
 *   field: 'taskIds',
 *   acknowledge: (requested, subscriber) =>
 *     Array.isArray(requested) ? requested.filter((id) => tasks.ownedBy(id, subscriber.principal)) : undefined,
 * });
 * subscriptions.publish('notifications/tasks', task, (s) => (s.filter.taskIds as string[] | undefined)?.includes(task.taskId) === true);
 * ```
 */
@Injectable()
export class ListenSubscriptions {
  private readonly logger = new Logger('McpSubscriptions');
  private readonly open = new Map<ListenSubscription, string>();
  private readonly perOwner = new Map<string, number>();
  private readonly topicsByField = new Map<string, McpSubscriptionTopic>();

  constructor(@InjectProtocolOptions() private readonly options: ProtocolOptions) {}

  /** Open subscriptions. */
  get size(): number {
    return this.open.size;
  }

  /** The extension fields served, by name. */
  get topics(): ReadonlyMap<string, McpSubscriptionTopic> {
    return this.topicsByField;
  }

  /**
   * Serves an extension's filter field on every later `subscriptions/listen`; returns how to stop.
   * @throws Error when the field is standard or already served
   */
  addTopic(topic: McpSubscriptionTopic): () => void {
    if (STANDARD_FIELDS.has(topic.field) || this.topicsByField.has(topic.field))
      throw new Error(`The subscriptions/listen filter field "${topic.field}" is already served`);
    this.topicsByField.set(topic.field, topic);
    return () => {
      if (this.topicsByField.get(topic.field) === topic) this.topicsByField.delete(topic.field);
    };
  }

  /**
   * Whether `owner` may open one more subscription.
   * @throws RequestLimitError naming the limit reached
   */
  checkRoom(owner: string): void {
    const { max, maxPerPrincipal } = this.options.sessions;
    if (this.open.size >= max)
      throw new RequestLimitError(`Too many subscriptions: the host holds ${max} (maxSessions); try again later`);
    if ((this.perOwner.get(owner) ?? 0) >= maxPerPrincipal)
      throw new RequestLimitError(
        `Too many subscriptions: this caller already holds ${maxPerPrincipal} (maxSessionsPerPrincipal); close one first`,
      );
  }

  /** Registers an acknowledged subscription until it ends. */
  add(subscription: ListenSubscription, owner: string): void {
    this.open.set(subscription, owner);
    this.perOwner.set(owner, (this.perOwner.get(owner) ?? 0) + 1);
    void subscription.ended.then(() => this.remove(subscription));
  }

  /**
   * Sends `method` with `params` to every open subscription `matches` picks, each tagged with its
   * subscription id. A predicate that throws skips that subscription (logged). Returns how many
   * it reached.
   */
  publish(
    method: string,
    params: Record<string, unknown>,
    matches: (subscription: ListenSubscription) => boolean,
  ): number {
    let reached = 0;
    for (const subscription of this.open.keys()) {
      let wanted: boolean;
      try {
        wanted = matches(subscription);
      } catch (error) {
        this.logger.error(`Choosing the subscriptions of ${method} failed`, (error as Error)?.stack ?? String(error));
        continue;
      }
      if (wanted && subscription.notify(method, params)) reached++;
    }
    return reached;
  }

  /**
   * Ends every subscription on the host's initiative (shutdown): each gets its graceful closing.
   * Resolves once their listen requests were answered (the answers go out on the next turn of
   * the event loop), so that a transport closed after it has written them.
   */
  async closeAll(reason: string): Promise<void> {
    const ending = [...this.open.keys()];
    for (const subscription of ending) subscription.end({ by: 'host', reason });
    if (ending.length > 0) await new Promise((resolve) => setImmediate(resolve));
  }

  private remove(subscription: ListenSubscription): void {
    const owner = this.open.get(subscription);
    if (owner === undefined) return;
    this.open.delete(subscription);
    const left = (this.perOwner.get(owner) ?? 1) - 1;
    if (left > 0) this.perOwner.set(owner, left);
    else this.perOwner.delete(owner);
  }
}

const STANDARD_FIELDS: ReadonlySet<string> = new Set([
  'toolsListChanged',
  'promptsListChanged',
  'resourcesListChanged',
  'resourceSubscriptions',
]);
