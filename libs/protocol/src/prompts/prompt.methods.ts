import { Injectable } from '@nestjs/common';
import { JsonRpcError, JsonRpcErrorCode } from '#libs/core';
import { PromptRegistry } from '#libs/catalog';
import { PromptGetter } from '#libs/prompts';
import { InjectProtocolOptions, type ProtocolOptions } from '../protocol.options';
import { AccessControl, AccessDeniedError } from '../admission/access-control';
import type { RequestNote } from '../events/request-note';
import { RequestTelemetry } from '../events/request-telemetry';
import { CallScope } from '../dispatch/call-scope';
import type { DispatchScope, McpMethods, MethodHandler } from '../dispatch/method-handler';
import type { JsonRpcId } from '../dispatch/json-rpc';

/** `prompts/list` and `prompts/get`. */
@Injectable()
export class PromptMethods implements McpMethods {
  readonly methods: Record<string, MethodHandler> = {
    'prompts/list': (params, _id, scope) => this.registry.listPage(params.cursor, this.options.pageSize, this.access.view(scope.principal)),
    'prompts/get': (params, id, scope, note) => this.get(params, id, scope, note),
  };

  constructor(
    @InjectProtocolOptions() private readonly options: ProtocolOptions,
    private readonly registry: PromptRegistry,
    private readonly getter: PromptGetter,
    private readonly calls: CallScope,
    private readonly access: AccessControl,
    private readonly telemetry: RequestTelemetry,
  ) {}

  private async get(params: Record<string, unknown>, id: JsonRpcId, scope: DispatchScope, note: RequestNote): Promise<string> {
    const name = params.name;
    if (typeof name !== 'string') throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, 'prompts/get: "name" must be a string');
    const registered = this.registry.get(name);
    note.entry('prompt', name, params.arguments);
    const prompt = this.access.visible(scope.principal, registered);
    if (!prompt) {
      const message = `Unknown prompt: ${name}`;
      throw registered ? new AccessDeniedError(JsonRpcErrorCode.INVALID_PARAMS, message) : new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, message);
    }
    await this.access.authorizeCall(scope.principal, 'prompt', name, params.arguments, prompt);
    this.telemetry.admit(note);
    return JSON.stringify(await this.calls.run(scope, id, 'prompt', name, params, note, (context) => this.getter.get(prompt, params.arguments, context)));
  }
}
