import { Injectable } from '@nestjs/common';
import type { Prompt } from '@modelcontextprotocol/sdk/types.js';
import {
  readCacheOption,
  type JsonSchemaObject,
  type McpDiagnostic,
  type McpPromptArgument,
  type SchemaSource,
} from '#libs/core';
import { CatalogMessages, CatalogResourceMessages } from '../messages/catalog.messages';
import { handlerFields, inspectHandlerParameters } from '../handlers/handler-parameters';
import { JsonSchemaFactory } from '../schema/json-schema.factory';
import { schemaKindOf } from '../schema/schema-kind';
import { presentation, type HandlerCandidate } from '../tools/tool-definition.factory';
import type { RegisteredPrompt } from './registered-prompt.interface';

/** Builds a prompt's definition and argument list from `@McpPrompt` and its parameters. */
@Injectable()
export class PromptDefinitionFactory {
  constructor(private readonly schemas: JsonSchemaFactory) {}

  create(candidate: HandlerCandidate<'prompt'>): { prompt?: RegisteredPrompt; diagnostics: McpDiagnostic[] } {
    const { hostClass, methodName, options } = candidate;
    const where = `${hostClass.name}.${methodName}`;
    const diagnostics: McpDiagnostic[] = [];
    const report = (message: { problem: string; fix: string }) => diagnostics.push({ where, ...message });

    if (!options.description?.trim()) report(CatalogMessages.missingDescription());
    const { bindings, dtoType } = inspectHandlerParameters(hostClass, methodName, report);
    const explicit = Array.isArray(options.args) ? options.args : undefined;
    let schemaSource: SchemaSource | undefined = explicit ? undefined : (options.args as SchemaSource | undefined);
    if (options.args && dtoType) report(CatalogResourceMessages.promptArgsTwice(dtoType.name));
    schemaSource ??= dtoType;
    if (bindings.length > 0 && !options.args && !dtoType) report(CatalogResourceMessages.promptArgsMissing());
    if (bindings.length === 0 && options.args) report(CatalogResourceMessages.promptArgsUnused());
    explicit?.forEach((argument, index) => {
      if (typeof argument?.name !== 'string' || !argument.name)
        report(CatalogResourceMessages.badPromptArgument(index));
    });

    let args: McpPromptArgument[] = explicit ?? [];
    let kind = schemaSource ? schemaKindOf(schemaSource) : undefined;
    let argumentsSchema: JsonSchemaObject | undefined;
    if (schemaSource) {
      if (!kind || kind === 'json-schema') {
        report(CatalogMessages.unsupportedSchema('input'));
        kind = undefined;
      } else {
        argumentsSchema = this.schemas.create(schemaSource);
        args = argumentsOf(argumentsSchema);
      }
    }
    const cache = readCacheOption(options.cache, (problem, fix) => report(CatalogMessages.badCache(problem, fix)));
    if (diagnostics.length > 0) return { diagnostics };

    const name = options.name ?? methodName;
    const definition: Prompt = {
      name,
      description: options.description,
      ...presentation(options),
      ...(args.length > 0 && { arguments: args }),
    };
    const prompt: RegisteredPrompt = {
      key: name,
      name,
      definition,
      options,
      ...handlerFields(candidate, where, bindings, cache),
      arguments: args,
      validation: schemaSource && kind ? { source: schemaSource, kind } : undefined,
      argumentsSchema,
      complete: { ...options.complete },
    };
    return { prompt, diagnostics };
  }
}

/** The prompt argument list described by an object schema. */
function argumentsOf(schema: JsonSchemaObject): McpPromptArgument[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const description = (property as { description?: unknown }).description;
    return {
      name,
      ...(typeof description === 'string' && { description }),
      required: required.has(name),
    };
  });
}
