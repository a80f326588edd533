import { Injectable } from '@nestjs/common';
import { JsonRpcError, JsonRpcErrorCode, type McpCompleter, type McpPrincipal } from '#libs/core';
import { PromptRegistry, ResourceRegistry } from '#libs/catalog';
import { AccessControl } from '../admission/access-control';
import type { McpMethods } from '../methods/method-handler';

/** The spec caps a completion result at 100 values. */
const MAX_VALUES = 100;

/** `completion/complete` for prompt arguments and resource-template variables. */
@Injectable()
export class CompletionMethods implements McpMethods {
  readonly methods: McpMethods['methods'] = {
    'completion/complete': (request) => this.complete(request.params, request.principal),
  };

  constructor(
    private readonly prompts: PromptRegistry,
    private readonly resources: ResourceRegistry,
    private readonly access: AccessControl,
  ) {}

  private async complete(params: Record<string, unknown>, principal: McpPrincipal): Promise<string> {
    const ref = params.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
    const argument = params.argument as { name?: unknown; value?: unknown } | undefined;
    if (typeof argument?.name !== 'string' || typeof argument.value !== 'string') {
      throw invalid('completion/complete: "argument" must be { name: string, value: string }');
    }
    const completer = this.completerFor(ref, principal);
    const context = (params.context as { arguments?: Record<string, string> } | undefined)?.arguments ?? {};
    const values = completer?.[argument.name]
      ? await completer[argument.name](argument.value, { arguments: context })
      : [];
    return JSON.stringify({
      completion: { values: values.slice(0, MAX_VALUES), total: values.length, hasMore: values.length > MAX_VALUES },
    });
  }

  private completerFor(
    ref: { type?: unknown; name?: unknown; uri?: unknown } | undefined,
    principal: McpPrincipal,
  ): Readonly<Record<string, McpCompleter>> {
    if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
      const prompt = this.access.visible(principal, this.prompts.get(ref.name));
      if (!prompt) throw invalid(`Unknown prompt: ${ref.name}`);
      return prompt.complete;
    }
    if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
      const template = this.access.visible(principal, this.resources.templates.get(ref.uri));
      if (!template) throw invalid(`Unknown resource template: ${ref.uri}`);
      return template.complete;
    }
    throw invalid('completion/complete: "ref" must be { type: "ref/prompt", name } or { type: "ref/resource", uri }');
  }
}

const invalid = (message: string) => new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, message);
