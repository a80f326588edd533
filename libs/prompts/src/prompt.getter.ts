import { Injectable } from '@nestjs/common';
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { JsonRpcError, JsonRpcErrorCode } from '#libs/core';
import type { RegisteredPrompt } from '#libs/catalog';
import {
  HandlerRunner,
  InjectInvocationOptions,
  type InvocationOptions,
  ValidatorFactory,
  type CallContext,
  type CompiledValidator,
} from '#libs/invocation';
import { toGetPromptResult } from './prompt-result.mapper';
import { PromptMessages } from './prompts.messages';

/**
 * Serves `prompts/get`: checks the arguments (strings, required ones present, then the DTO or
 * zod schema if any), runs the prompt method through Nest's pipeline and maps its result.
 * Every failure is a JSON-RPC error: `-32602` for bad arguments, `-32603` otherwise.
 */
@Injectable()
export class PromptGetter {
  private readonly validators = new WeakMap<RegisteredPrompt, CompiledValidator>();

  constructor(
    private readonly runner: HandlerRunner,
    private readonly validatorFactory: ValidatorFactory,
    @InjectInvocationOptions() private readonly options: InvocationOptions,
  ) {}

  async get(prompt: RegisteredPrompt, rawArgs: unknown, context: CallContext): Promise<GetPromptResult> {
    const args = this.checkArguments(prompt, rawArgs ?? {});
    let value: unknown = args;
    if (prompt.validation) {
      const validate = this.validators.get(prompt) ?? this.compile(prompt);
      const validation = validate(args);
      if (!validation.ok) throw invalidParams(PromptMessages.invalidArguments(prompt.name, validation.issues));
      value = validation.value;
    }
    const returned = await this.runner.runOrThrow(prompt, value, context, `prompts/get "${prompt.name}"`);
    return toGetPromptResult(returned, prompt.definition.description);
  }

  private checkArguments(prompt: RegisteredPrompt, args: unknown): Record<string, string> {
    if (
      typeof args !== 'object' ||
      args === null ||
      Array.isArray(args) ||
      Object.values(args).some((value) => typeof value !== 'string')
    ) {
      throw invalidParams(PromptMessages.argumentsNotStrings(prompt.name));
    }
    let given = args as Record<string, string>;
    const undeclared = Object.keys(given).filter(
      (name) => !prompt.arguments.some((argument) => argument.name === name),
    );
    if (undeclared.length > 0 && this.options.unknownArguments !== 'allow') {
      if (this.options.unknownArguments === 'refuse') {
        throw invalidParams(
          PromptMessages.undeclaredArguments(
            prompt.name,
            undeclared,
            prompt.arguments.map((argument) => argument.name),
          ),
        );
      }
      given = Object.fromEntries(Object.entries(given).filter(([name]) => !undeclared.includes(name)));
    }
    const missing = prompt.arguments
      .filter((argument) => argument.required && given[argument.name] === undefined)
      .map((argument) => argument.name);
    if (missing.length > 0) throw invalidParams(PromptMessages.missingArguments(prompt.name, missing));
    return given;
  }

  private compile(prompt: RegisteredPrompt): CompiledValidator {
    const validate = this.validatorFactory.compile(prompt.validation!.source, prompt.validation!.kind);
    this.validators.set(prompt, validate);
    return validate;
  }
}

const invalidParams = (message: string) => new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, message);
