import { Injectable } from '@nestjs/common';
import { JsonRpcError, JsonRpcErrorCode } from '#libs/core';
import { PromptRegistry } from '#libs/catalog';
import {
  CallAdmission,
  CallerLists,
  CallScope,
  type DispatchScope,
  type JsonRpcId,
  type McpMethods,
  type RequestNote,
} from '#libs/protocol';
import { PromptGetter } from './prompt.getter';

/** `prompts/list` and `prompts/get`: parameter checks, then the one admission, then the getter. */
@Injectable()
export class PromptMethods implements McpMethods {
  readonly methods: McpMethods['methods'] = {
    'prompts/list': (params, _id, scope) => this.lists.page(this.registry, params, scope),
    'prompts/get': (params, id, scope, note) => this.get(params, id, scope, note),
  };

  constructor(
    private readonly registry: PromptRegistry,
    private readonly getter: PromptGetter,
    private readonly calls: CallScope,
    private readonly lists: CallerLists,
    private readonly admission: CallAdmission,
  ) {}

  private async get(
    params: Record<string, unknown>,
    id: JsonRpcId,
    scope: DispatchScope,
    note: RequestNote,
  ): Promise<string> {
    const name = params.name;
    if (typeof name !== 'string')
      throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, 'prompts/get: "name" must be a string');
    const notFound = () => new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, `Unknown prompt: ${name}`);
    const request = {
      kind: 'prompt',
      target: name,
      entry: this.registry.get(name),
      args: params.arguments,
      notFound,
    } as const;
    const prompt = await this.admission.admit(request, scope, note);
    return JSON.stringify(
      await this.calls.serve(scope, id, 'prompt', name, params, note, async (context) => ({
        value: await this.getter.get(prompt, params.arguments, context),
      })),
    );
  }
}
