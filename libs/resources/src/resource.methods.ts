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
  type DispatchScope,
  type JsonRpcId,
  type McpMethods,
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
    'resources/list': (params, _id, scope) => this.lists.page(this.registry.resources, params, scope),
    'resources/templates/list': (params, _id, scope) => this.lists.page(this.registry.templates, params, scope),
    'resources/read': (params, id, scope, note) => this.read(params, id, scope, note),
    'resources/subscribe': (params, _id, scope, note) => this.subscribe(params, scope, true, note),
    'resources/unsubscribe': (params, _id, scope) => this.subscribe(params, scope, false),
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

  private async read(
    params: Record<string, unknown>,
    id: JsonRpcId,
    scope: DispatchScope,
    note: RequestNote,
  ): Promise<string> {
    const uri = requireUri('resources/read', params);
    const resolved = this.registry.resolve(uri);
    const request = {
      kind: 'resource',
      target: uri,
      entry: resolved?.handler,
      args: resolved?.variables,
      notFound: () => resourceNotFound(uri),
    } as const;
    const entry = await this.admission.admit(request, scope, note);
    const json = JSON.stringify(
      await this.calls.serve(scope, id, 'resource', uri, params, note, async (context) => ({
        value: await this.reader.read(uri, context),
      })),
    );
    // A 2026-07-28 read carries its resource's caching hints (a result that brings its own is left as it is).
    const hints = scope.session.stateless && !json.startsWith('{"resultType"') ? this.hints.ofEntry(entry) : undefined;
    return hints ? withCacheHints(json, hints) : json;
  }

  /** Subscribing runs nothing, so it needs only the entry to be visible (no call rule, no audit gate). */
  private async subscribe(
    params: Record<string, unknown>,
    scope: DispatchScope,
    on: boolean,
    note?: RequestNote,
  ): Promise<string> {
    const uri = requireUri(on ? 'resources/subscribe' : 'resources/unsubscribe', params);
    if (on) {
      const resolved = this.registry.resolve(uri);
      note?.entry('resource', uri, resolved?.variables);
      if (!resolved) throw resourceNotFound(uri);
      if (!this.access.allows(scope.principal, resolved.handler)) {
        const notFound = resourceNotFound(uri);
        throw new AccessDeniedError(notFound.code, notFound.message, notFound.data);
      }
      const subscriptions = scope.session.subscriptions;
      const max = this.options.sessions.maxSubscriptions;
      if (subscriptions.size >= max && !subscriptions.has(uri)) {
        throw new RequestLimitError(
          `Too many subscriptions: this session already has ${max} (maxSubscriptionsPerSession); unsubscribe from one first`,
        );
      }
      subscriptions.add(uri);
      await this.notifier.subscribed(uri);
    } else {
      scope.session.subscriptions.delete(uri);
    }
    return EMPTY_RESULT;
  }
}

function requireUri(method: string, params: Record<string, unknown>): string {
  if (typeof params.uri !== 'string' || !params.uri)
    throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, `${method}: "uri" must be a non-empty string`);
  return params.uri;
}
