import { Injectable } from '@nestjs/common';
import { JsonRpcError, JsonRpcErrorCode } from '#libs/core';
import { ResourceRegistry, type ResolvedResource } from '#libs/catalog';
import { ResourceReader, resourceNotFound } from '#libs/resources';
import { InjectProtocolOptions, type ProtocolOptions } from '../protocol.options';
import { AccessControl, AccessDeniedError } from '../admission/access-control';
import type { RequestNote } from '../events/request-note';
import { RequestTelemetry } from '../events/request-telemetry';
import { CallScope } from '../dispatch/call-scope';
import { RequestLimitError } from '../dispatch/request-limits';
import { EMPTY_RESULT, type DispatchScope, type McpMethods, type MethodHandler } from '../dispatch/method-handler';
import type { JsonRpcId } from '../dispatch/json-rpc';

/** `resources/list`, `resources/templates/list`, `resources/read`, `resources/(un)subscribe`. */
@Injectable()
export class ResourceMethods implements McpMethods {
  readonly methods: Record<string, MethodHandler> = {
    'resources/list': (params, _id, scope) => this.registry.resources.listPage(params.cursor, this.options.pageSize, this.access.view(scope.principal)),
    'resources/templates/list': (params, _id, scope) =>
      this.registry.templates.listPage(params.cursor, this.options.pageSize, this.access.view(scope.principal)),
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
    private readonly telemetry: RequestTelemetry,
  ) {}

  /** A resource the caller may not read is answered exactly like one that does not exist. */
  private requireVisible(uri: string, scope: DispatchScope, note?: RequestNote): ResolvedResource {
    const resolved = this.registry.resolve(uri);
    note?.entry('resource', uri, resolved?.variables);
    if (!resolved) throw resourceNotFound(uri);
    if (!this.access.allows(scope.principal, resolved.handler)) {
      const notFound = resourceNotFound(uri);
      throw new AccessDeniedError(notFound.code, notFound.message, notFound.data);
    }
    return resolved;
  }

  private async read(params: Record<string, unknown>, id: JsonRpcId, scope: DispatchScope, note: RequestNote): Promise<string> {
    const uri = requireUri('resources/read', params);
    const resolved = this.requireVisible(uri, scope, note);
    await this.access.authorizeCall(scope.principal, 'resource', uri, resolved.variables, resolved.handler);
    this.telemetry.admit(note);
    return JSON.stringify(await this.calls.run(scope, id, 'resource', uri, params, note, (context) => this.reader.read(uri, context)));
  }

  private subscribe(params: Record<string, unknown>, scope: DispatchScope, on: boolean, note?: RequestNote): string {
    const uri = requireUri(on ? 'resources/subscribe' : 'resources/unsubscribe', params);
    if (on) {
      this.requireVisible(uri, scope, note);
      const subscriptions = scope.session.subscriptions;
      const max = this.options.sessions.maxSubscriptions;
      if (subscriptions.size >= max && !subscriptions.has(uri)) {
        throw new RequestLimitError(`Too many subscriptions: this session already has ${max} (maxSubscriptionsPerSession); unsubscribe from one first`);
      }
      subscriptions.add(uri);
    } else {
      scope.session.subscriptions.delete(uri);
    }
    return EMPTY_RESULT;
  }
}

function requireUri(method: string, params: Record<string, unknown>): string {
  if (typeof params.uri !== 'string' || !params.uri) throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, `${method}: "uri" must be a non-empty string`);
  return params.uri;
}
