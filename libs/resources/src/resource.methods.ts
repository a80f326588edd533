import { Injectable } from '@nestjs/common';
import { JsonRpcError, JsonRpcErrorCode } from '#libs/core';
import { ResourceRegistry } from '#libs/catalog';
import {
  AccessControl,
  AccessDeniedError,
  CacheHints,
  CallAdmission,
  CallerLists,
  CallScope,
  EMPTY_RESULT,
  InjectProtocolOptions,
  RequestLimitError,
  withCacheHints,
  type McpMethods,
  type McpRequest,
  type ReplyChannel,
  type ProtocolOptions,
  type RequestNote,
} from '#libs/protocol';
import { resourceNotFound } from './resource-not-found';
import { McpResourceNotifier } from './resource.notifier';
import { ResourceReader } from './resource.reader';

/**
 * `resources/list`, `resources/templates/list`, `resources/read`, `resources/(un)subscribe`:
 * parameter checks, then the one admission, then the reader.
 */
@Injectable()
export class ResourceMethods implements McpMethods {
  readonly methods: McpMethods['methods'] = {
    'resources/list': (request) => this.lists.page(this.registry.resources, request),
    'resources/templates/list': (request) => this.lists.page(this.registry.templates, request),
    'resources/read': (request, reply, note) => this.read(request, reply, note),
    'resources/subscribe': (request, _reply, note) => this.subscribe(request, true, note),
    'resources/unsubscribe': (request) => this.subscribe(request, false),
  };

  constructor(
    @InjectProtocolOptions() private readonly options: ProtocolOptions,
    private readonly registry: ResourceRegistry,
    private readonly reader: ResourceReader,
    private readonly calls: CallScope,
    private readonly access: AccessControl,
    private readonly lists: CallerLists,
    private readonly admission: CallAdmission,
    private readonly hints: CacheHints,
    private readonly notifier: McpResourceNotifier,
  ) {}

  private async read(request: McpRequest, reply: ReplyChannel, note: RequestNote): Promise<string> {
    const uri = requireUri('resources/read', request.params);
    const resolved = this.registry.resolve(uri);
    const call = await this.admission.admit(
      {
        kind: 'resource',
        target: uri,
        entry: resolved?.handler,
        args: resolved?.variables,
        notFound: () => resourceNotFound(uri),
      },
      request,
      reply,
      note,
    );
    const json = JSON.stringify(
      await this.calls.serve(call, async (context) => ({ value: await this.reader.read(uri, context) })),
    );
    // A 2026-07-28 read carries its resource's caching hints (a result that brings its own is left as it is).
    const hints =
      request.session.stateless && !json.startsWith('{"resultType"') ? this.hints.ofEntry(call.entry) : undefined;
    return hints ? withCacheHints(json, hints) : json;
  }

  /** Subscribing runs nothing, so it needs only the entry to be visible (no call rule, no audit gate). */
  private async subscribe(request: McpRequest, on: boolean, note?: RequestNote): Promise<string> {
    const uri = requireUri(on ? 'resources/subscribe' : 'resources/unsubscribe', request.params);
    if (on) {
      const resolved = this.registry.resolve(uri);
      note?.entry('resource', uri, resolved?.variables);
      if (!resolved) throw resourceNotFound(uri);
      if (!this.access.allows(request.principal, resolved.handler)) {
        const notFound = resourceNotFound(uri);
        throw new AccessDeniedError(notFound.code, notFound.message, notFound.data);
      }
      const subscriptions = request.session.subscriptions;
      const max = this.options.sessions.maxSubscriptions;
      if (subscriptions.size >= max && !subscriptions.has(uri)) {
        throw new RequestLimitError(
          `Too many subscriptions: this session already has ${max} (maxSubscriptionsPerSession); unsubscribe from one first`,
        );
      }
      subscriptions.add(uri);
      await this.notifier.subscribed(uri);
    } else {
      request.session.subscriptions.delete(uri);
    }
    return EMPTY_RESULT;
  }
}

function requireUri(method: string, params: Record<string, unknown>): string {
  if (typeof params.uri !== 'string' || !params.uri)
    throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, `${method}: "uri" must be a non-empty string`);
  return params.uri;
}
