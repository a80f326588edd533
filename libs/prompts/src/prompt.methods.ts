import { Injectable } from '@nestjs/common';
import { JsonRpcError, JsonRpcErrorCode } from '#libs/core';
import { PromptRegistry } from '#libs/catalog';
import {
  CallAdmission,
  CallerLists,
  CallScope,
  type McpMethods,
  type McpRequest,
  type ReplyChannel,
  type RequestNote,
} from '#libs/protocol';
import { PromptGetter } from './prompt.getter';

/** `prompts/list` and `prompts/get`: parameter checks, then the one admission, then the getter. */
@Injectable()
export class PromptMethods implements McpMethods {
  readonly methods: McpMethods['methods'] = {
    'prompts/list': (request) => this.lists.page(this.registry, request),
    'prompts/get': (request, reply, note) => this.get(request, reply, note),
  };

  constructor(
    private readonly registry: PromptRegistry,
    private readonly getter: PromptGetter,
    private readonly calls: CallScope,
    private readonly lists: CallerLists,
    private readonly admission: CallAdmission,
  ) {}

  private async get(request: McpRequest, reply: ReplyChannel, note: RequestNote): Promise<string> {
    const params = request.params;
    const name = params.name;
    if (typeof name !== 'string')
      throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, 'prompts/get: "name" must be a string');
    const notFound = () => new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, `Unknown prompt: ${name}`);
    const call = await this.admission.admit(
      { kind: 'prompt', target: name, entry: this.registry.get(name), args: params.arguments, notFound },
      request,
      reply,
      note,
    );
    return JSON.stringify(
      await this.calls.serve(call, async (context) => ({
        value: await this.getter.get(call.entry, call.args, context),
      })),
    );
  }
}
