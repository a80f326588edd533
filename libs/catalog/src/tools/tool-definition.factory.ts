import { Injectable, type Type } from '@nestjs/common';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  readCacheOption,
  type JsonSchemaObject,
  type McpDiagnostic,
  type McpPromptOptions,
  type McpResourceOptions,
  type McpResourceTemplateOptions,
  type McpToolOptions,
  type SchemaSource,
} from '#libs/core';
import { CatalogMessages } from '../messages/catalog.messages';
import { handlerFields, inspectHandlerParameters } from '../handlers/handler-parameters';
import type { AccessRequirements } from '../handlers/registered-handler.interface';
import type { RegisteredTool } from './registered-tool.interface';
import { toolHeaderParams } from './tool-header-params';
import { toolMetaWithUi } from './tool-ui-meta';
import { cliNamesOf } from './tool-cli-names';
import { JsonSchemaFactory } from '../schema/json-schema.factory';
import { prototypeNamedProperties } from '../schema/prototype-names';
import { isObjectJsonSchema, schemaKindOf, type SchemaKind } from '../schema/schema-kind';

interface CandidateOptions {
  tool: McpToolOptions;
  prompt: McpPromptOptions;
  resource: McpResourceOptions;
  template: McpResourceTemplateOptions;
}

/** The optional fields every definition carries as given: title, icons, `_meta`. */
export function presentation(options: {
  title?: string;
  icons?: McpToolOptions['icons'];
  _meta?: Record<string, unknown>;
}) {
  return {
    ...(options.title !== undefined && { title: options.title }),
    ...(options.icons && { icons: options.icons }),
    ...(options._meta && { _meta: options._meta }),
  };
}

/** One decorated method as found by the explorer. */
export interface HandlerCandidate<K extends keyof CandidateOptions> {
  hostClass: Type<object>;
  methodName: string;
  options: CandidateOptions[K];
  instance: object | undefined;
  /** Who may see and call it; open to all when absent. */
  access?: AccessRequirements;
}

export type ToolCandidate = HandlerCandidate<'tool'>;

const UNKNOWN_ARGUMENTS = new Set<unknown>(['refuse', 'strip', 'allow']);
const EMPTY_INPUT_SCHEMA: JsonSchemaObject = { type: 'object', properties: {} };

/**
 * Builds a tool's wire definition from its decorator options and parameter metadata, and
 * reports every problem it finds instead of stopping at the first.
 */
@Injectable()
export class ToolDefinitionFactory {
  constructor(private readonly schemas: JsonSchemaFactory) {}

  create(candidate: ToolCandidate): { tool?: RegisteredTool; diagnostics: McpDiagnostic[] } {
    const { hostClass, methodName, options } = candidate;
    const where = `${hostClass.name}.${methodName}`;
    const diagnostics: McpDiagnostic[] = [];
    const report = (message: { problem: string; fix: string }) => diagnostics.push({ where, ...message });

    if (!options.description?.trim()) report(CatalogMessages.missingDescription());
    if (options.unknownArguments !== undefined && !UNKNOWN_ARGUMENTS.has(options.unknownArguments))
      report(CatalogMessages.badUnknownArguments(options.unknownArguments));

    const { bindings, dtoType } = inspectHandlerParameters(hostClass, methodName, report);
    let inputSource: SchemaSource | undefined = options.input;
    if (options.input && dtoType) report(CatalogMessages.twoSchemaSources(dtoType.name));
    inputSource ??= dtoType;
    if (bindings.length > 0 && !inputSource) report(CatalogMessages.noSchemaSource());
    if (bindings.length === 0 && options.input) report(CatalogMessages.inputWithoutArgs());

    const input = this.resolveSchema('input', inputSource, report);
    const output = this.resolveSchema('output', options.output, report);
    const cache = readCacheOption(options.cache, (problem, fix) => report(CatalogMessages.badCache(problem, fix)));
    const headerParams = input ? toolHeaderParams(input.schema, report) : [];
    // Only a declaration is checked: a tool that declares none still runs from the CLI, its
    // clashing names left out, and an app that never uses the CLI is not refused for them.
    if (options.cli !== undefined && (input || !inputSource))
      cliNamesOf(input?.schema ?? EMPTY_INPUT_SCHEMA, options.cli, report);
    const _meta = toolMetaWithUi(options, report);
    if (diagnostics.length > 0) return { diagnostics };

    const name = options.name ?? methodName;
    const definition: Tool = {
      name,
      description: options.description,
      ...presentation({ ...options, _meta }),
      inputSchema: (input?.schema ?? EMPTY_INPUT_SCHEMA) as Tool['inputSchema'],
      ...(output && { outputSchema: output.schema as Tool['outputSchema'] }),
      ...(options.annotations && { annotations: options.annotations }),
      ...(options.task && { execution: { taskSupport: options.task } }),
    };
    const tool: RegisteredTool = {
      key: name,
      name,
      definition,
      options,
      ...handlerFields(candidate, where, bindings, cache),
      input: input && { source: input.source, kind: input.kind },
      output: output && { source: output.source, kind: output.kind },
      ...(headerParams.length > 0 && { headerParams }),
    };
    return { tool, diagnostics };
  }

  private resolveSchema(
    which: 'input' | 'output',
    source: SchemaSource | undefined,
    report: (message: { problem: string; fix: string }) => void,
  ): { source: SchemaSource; kind: SchemaKind; schema: JsonSchemaObject } | undefined {
    if (source === undefined) return undefined;
    const kind = schemaKindOf(source);
    if (!kind) {
      report(CatalogMessages.unsupportedSchema(which));
      return undefined;
    }
    let schema: JsonSchemaObject;
    try {
      schema = this.schemas.create(source);
    } catch (error) {
      report(CatalogMessages.schemaFailed(which, (error as Error).message));
      return undefined;
    }
    if (!isObjectJsonSchema(schema)) {
      report(CatalogMessages.notObjectSchema(which));
      return undefined;
    }
    if (kind === 'dto') {
      const names = prototypeNamedProperties(schema);
      if (names.length > 0) {
        report(CatalogMessages.dtoPrototypeNames((source as Type<object>).name, names));
        return undefined;
      }
    }
    return { source, kind, schema };
  }
}
