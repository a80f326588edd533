import { Inject, Injectable } from '@nestjs/common';
import { JsonRpcError, JsonRpcErrorCode } from '#libs/core';
import { ResourceRegistry } from '#libs/catalog';
import { ResourceReader, resourceNotFound } from '#libs/resources';
import { MCP_RESOLVED_OPTIONS, type ResolvedMcpOptions } from '../../options/resolved-options';
import { CallScope } from '../call-scope';
import { EMPTY_RESULT, type DispatchScope, type McpMethods, type MethodHandler } from '../method-handler';
import type { JsonRpcId } from '../json-rpc';

/** `resources/list`, `resources/templates/list`, `resources/read`, `resources/(un)subscribe`. */
@Injectable()
export class ResourceMethods implements McpMethods {
  readonly methods: Record<string, MethodHandler> = {
    'resources/list': (params) => this.registry.resources.listPage(params.cursor, this.options.pageSize),
    'resources/templates/list': (params) => this.registry.templates.listPage(params.cursor, this.options.pageSize),
    'resources/read': (params, id, scope) => this.read(params, id, scope),
    'resources/subscribe': (params, _id, scope) => this.subscribe(params, scope, true),
    'resources/unsubscribe': (params, _id, scope) => this.subscribe(params, scope, false),
  };

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: ResolvedMcpOptions,
    private readonly registry: ResourceRegistry,
    private readonly reader: ResourceReader,
    private readonly calls: CallScope,
  ) {}

  private async read(params: Record<string, unknown>, id: JsonRpcId, scope: DispatchScope): Promise<string> {
    const uri = requireUri('resources/read', params);
    return JSON.stringify(await this.calls.run(scope, id, 'resource', uri, params, (context) => this.reader.read(uri, context)));
  }

  private subscribe(params: Record<string, unknown>, scope: DispatchScope, on: boolean): string {
    const uri = requireUri(on ? 'resources/subscribe' : 'resources/unsubscribe', params);
    if (on) {
      if (!this.reader.exists(uri)) throw resourceNotFound(uri);
      scope.session.subscriptions.add(uri);
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
