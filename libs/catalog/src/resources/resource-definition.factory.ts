import { Injectable } from '@nestjs/common';
import {
  readCacheOption,
  type McpCacheHints,
  type McpDiagnostic,
  type McpResourceOptions,
  type McpResourceTemplateOptions,
} from '#libs/core';
import { CatalogMessages, CatalogResourceMessages } from '../messages/catalog.messages';
import { handlerFields, inspectHandlerParameters } from '../handlers/handler-parameters';
import { presentation, type HandlerCandidate } from '../tools/tool-definition.factory';
import type { RegisteredResource, RegisteredResourceTemplate } from './registered-resource.interface';
import { UriTemplate } from './uri-template';

const ABSOLUTE_URI = /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/;

type Report = (message: { problem: string; fix: string }) => void;

/** Builds resource and resource-template definitions from their decorators. */
@Injectable()
export class ResourceDefinitionFactory {
  createResource(candidate: HandlerCandidate<'resource'>): {
    resource?: RegisteredResource;
    diagnostics: McpDiagnostic[];
  } {
    const { options } = candidate;
    const { where, diagnostics, report, cache } = this.start(candidate);
    if (typeof options.uri !== 'string' || !ABSOLUTE_URI.test(options.uri))
      report(CatalogResourceMessages.badUri(String(options.uri)));
    const { bindings } = inspectHandlerParameters(candidate.hostClass, candidate.methodName, report);
    if (diagnostics.length > 0) return { diagnostics };
    const { uri, size } = options;
    const resource: RegisteredResource = {
      key: uri,
      uri,
      definition: { uri, ...common(options), ...(size !== undefined && { size }) },
      ...handlerFields(candidate, where, bindings, cache),
    };
    return { resource, diagnostics };
  }

  createTemplate(candidate: HandlerCandidate<'template'>): {
    template?: RegisteredResourceTemplate;
    diagnostics: McpDiagnostic[];
  } {
    const { options } = candidate;
    const { where, diagnostics, report, cache } = this.start(candidate);
    let template: UriTemplate | undefined;
    try {
      template = UriTemplate.parse(String(options.uriTemplate));
    } catch (error) {
      report(CatalogResourceMessages.badTemplate((error as Error).message));
    }
    const { bindings } = inspectHandlerParameters(candidate.hostClass, candidate.methodName, report);
    if (template) {
      const whole = bindings.some((binding) => binding.property === undefined);
      const unbound = template.variables.filter(
        (name) => !whole && !bindings.some((binding) => binding.property === name),
      );
      if (unbound.length > 0 && bindings.length > 0) report(CatalogResourceMessages.templateVariablesUnbound(unbound));
    }
    if (diagnostics.length > 0 || !template) return { diagnostics };
    const registered: RegisteredResourceTemplate = {
      key: options.uriTemplate,
      template,
      definition: { uriTemplate: options.uriTemplate, ...common(options) },
      ...handlerFields(candidate, where, bindings, cache),
      complete: { ...options.complete },
    };
    return { template: registered, diagnostics };
  }

  private start(candidate: HandlerCandidate<'resource' | 'template'>): {
    where: string;
    diagnostics: McpDiagnostic[];
    report: Report;
    cache: McpCacheHints | undefined;
  } {
    const where = `${candidate.hostClass.name}.${candidate.methodName}`;
    const diagnostics: McpDiagnostic[] = [];
    const report: Report = (message) => diagnostics.push({ where, ...message });
    if (typeof candidate.options.name !== 'string' || !candidate.options.name.trim())
      report(CatalogResourceMessages.missingName());
    const cache = readCacheOption(candidate.options.cache, (problem, fix) =>
      report(CatalogMessages.badCache(problem, fix)),
    );
    return { where, diagnostics, report, cache };
  }
}

/** The definition fields resources and templates share. */
function common(options: McpResourceOptions | McpResourceTemplateOptions) {
  return {
    name: options.name,
    ...(options.description !== undefined && { description: options.description }),
    ...(options.mimeType !== undefined && { mimeType: options.mimeType }),
    ...(options.annotations && { annotations: options.annotations }),
    ...presentation(options),
  };
}
