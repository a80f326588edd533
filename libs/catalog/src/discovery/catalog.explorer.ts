import { Injectable, Logger, Optional, type OnModuleInit, type Type } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import {
  MCP_COMPLETION_METADATA,
  MCP_PROMPT_METADATA,
  MCP_REQUIRED_SCOPES_METADATA,
  MCP_ROLES_METADATA,
  MCP_RESOURCE_METADATA,
  MCP_RESOURCE_TEMPLATE_METADATA,
  MCP_TOOL_METADATA,
  McpStartupError,
  type McpCompleter,
  type McpCompletionOptions,
  type McpDiagnostic,
  type McpResourceOptions,
  type McpResourceTemplateOptions,
} from '#libs/core';
import { InjectCatalogOptions, type CatalogOptions } from './catalog.options';
import { CatalogMessages } from '../messages/catalog.messages';
import type { RegisteredTool } from '../tools/registered-tool.interface';
import { PromptDefinitionFactory } from '../prompts/prompt-definition.factory';
import { PromptRegistry } from '../prompts/prompt.registry';
import type { RegisteredPrompt } from '../prompts/registered-prompt.interface';
import type { RegisteredResource, RegisteredResourceTemplate } from '../resources/registered-resource.interface';
import { ResourceDefinitionFactory } from '../resources/resource-definition.factory';
import { ResourceRegistry } from '../resources/resource.registry';
import { ToolDefinitionFactory } from '../tools/tool-definition.factory';
import { ToolRegistry } from '../tools/tool.registry';

/** What one scan of the providers found. */
interface Found {
  tools: RegisteredTool[];
  prompts: RegisteredPrompt[];
  resources: RegisteredResource[];
  templates: RegisteredResourceTemplate[];
  completions: { options: McpCompletionOptions; where: string; completer: McpCompleter | undefined }[];
  diagnostics: McpDiagnostic[];
}

/**
 * Finds `@McpTool`, `@McpPrompt`, `@McpResource` and `@McpResourceTemplate` methods on every
 * provider at module init and registers them; reports every problem at once. Method decorators
 * are not indexed by `DiscoveryService`, so each provider's methods are scanned. Request-scoped
 * providers are registered without an instance and resolved per call. With the `include`
 * option, only the providers declared in the listed modules are scanned.
 */
@Injectable()
export class CatalogExplorer implements OnModuleInit {
  private readonly logger = new Logger('McpCatalog');

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly tools: ToolDefinitionFactory,
    private readonly prompts: PromptDefinitionFactory,
    private readonly resources: ResourceDefinitionFactory,
    private readonly toolRegistry: ToolRegistry,
    private readonly promptRegistry: PromptRegistry,
    private readonly resourceRegistry: ResourceRegistry,
    private readonly modules: ModulesContainer,
    // Absent when the catalog is used on its own (CatalogModule): every module is scanned.
    @Optional() @InjectCatalogOptions() private readonly options?: CatalogOptions,
  ) {}

  onModuleInit(): void {
    const found = this.scan();
    this.attachCompletions(found);
    found.diagnostics.push(
      ...this.toolRegistry.check(found.tools),
      ...this.promptRegistry.duplicates(found.prompts),
      ...this.resourceRegistry.check(found.resources, found.templates),
    );
    if (found.diagnostics.length > 0) throw new McpStartupError(found.diagnostics);
    this.toolRegistry.add(found.tools);
    this.promptRegistry.add(found.prompts);
    this.resourceRegistry.resources.add(found.resources);
    this.resourceRegistry.templates.add(found.templates);
    this.logger.log(
      `${found.tools.length} tool(s), ${found.prompts.length} prompt(s), ${found.resources.length} resource(s), ` +
        `${found.templates.length} resource template(s) registered`,
    );
  }

  /** Adds each `@McpCompletion` method to the completers of its prompt or template. */
  private attachCompletions(found: Found): void {
    for (const { options, where, completer } of found.completions) {
      const target =
        'prompt' in options
          ? found.prompts.find((prompt) => prompt.name === options.prompt)
          : found.templates.find((template) => template.key === options.template);
      const what = 'prompt' in options ? `prompt "${options.prompt}"` : `resource template "${options.template}"`;
      if (!completer) {
        found.diagnostics.push({
          where,
          problem: 'a completer cannot live on a request-scoped provider',
          fix: 'move it to a singleton provider',
        });
      } else if (!target) {
        found.diagnostics.push({
          where,
          problem: `@McpCompletion names ${what}, which does not exist`,
          fix: 'use the name (or URI template) exactly as declared',
        });
      } else {
        (target.complete as Record<string, McpCompleter>)[options.argument] = completer;
      }
    }
  }

  private scan(): Found {
    const found: Found = { tools: [], prompts: [], resources: [], templates: [], completions: [], diagnostics: [] };
    const visited = new Set<Type<object>>();
    for (const wrapper of this.providers(found.diagnostics)) {
      const hostClass = wrapper.metatype as Type<object> | undefined;
      if (!hostClass || typeof hostClass !== 'function' || !hostClass.prototype || visited.has(hostClass)) continue;
      const requestScoped = !wrapper.isDependencyTreeStatic();
      const instance = requestScoped ? undefined : (wrapper.instance as object | undefined);
      if (!requestScoped && !instance) continue;
      visited.add(hostClass);
      for (const methodName of this.scanner.getAllMethodNames(hostClass.prototype)) {
        this.inspect(found, hostClass, methodName, instance);
      }
    }
    return found;
  }

  /** Every provider of the application, or those of the `include`d modules. */
  private providers(diagnostics: McpDiagnostic[]): ReturnType<DiscoveryService['getProviders']> {
    const include = this.options?.include;
    if (!include) return this.discovery.getProviders();
    const modules = [...this.modules.values()].filter(({ metatype }) => include.includes(metatype));
    for (const wanted of include) {
      if (!modules.some(({ metatype }) => metatype === wanted)) {
        diagnostics.push({ where: 'McpModule option "include"', ...CatalogMessages.notImported(wanted.name) });
      }
    }
    return this.discovery.getProviders({}, modules);
  }

  private inspect(found: Found, hostClass: Type<object>, methodName: string, instance: object | undefined): void {
    const method = (hostClass.prototype as Record<string, unknown>)[methodName] as never;
    // Every entry's decorator records on the method: most methods of an application (and all of the
    // host's own providers) have nothing recorded, and are passed over with one look.
    if (Reflect.getMetadataKeys(method).length === 0) return;
    const read = <T>(key: string) => this.reflector.get<T | undefined>(key, method);
    const targets = [method, hostClass] as never[];
    const access = {
      scopes: this.reflector.getAllAndMerge<string[]>(MCP_REQUIRED_SCOPES_METADATA, targets),
      roles: this.reflector.getAllAndMerge<string[]>(MCP_ROLES_METADATA, targets),
    };
    const base = { hostClass, methodName, instance, access };
    const tool = read<RegisteredTool['options']>(MCP_TOOL_METADATA);
    if (tool) {
      const result = this.tools.create({ ...base, options: tool });
      collect(found, result.diagnostics, result.tool, found.tools);
    }
    const prompt = read<RegisteredPrompt['options']>(MCP_PROMPT_METADATA);
    if (prompt) {
      const result = this.prompts.create({ ...base, options: prompt });
      collect(found, result.diagnostics, result.prompt, found.prompts);
    }
    const resource = read<McpResourceOptions>(MCP_RESOURCE_METADATA);
    if (resource) {
      const result = this.resources.createResource({ ...base, options: resource });
      collect(found, result.diagnostics, result.resource, found.resources);
    }
    const completion = read<McpCompletionOptions>(MCP_COMPLETION_METADATA);
    if (completion) {
      const completer: McpCompleter | undefined = instance
        ? (value, context) => (instance as Record<string, McpCompleter>)[methodName](value, context)
        : undefined;
      found.completions.push({ options: completion, where: `${hostClass.name}.${methodName}`, completer });
    }
    const template = read<McpResourceTemplateOptions>(MCP_RESOURCE_TEMPLATE_METADATA);
    if (template) {
      const result = this.resources.createTemplate({ ...base, options: template });
      collect(found, result.diagnostics, result.template, found.templates);
    }
  }
}

function collect<T>(found: Found, diagnostics: McpDiagnostic[], item: T | undefined, list: T[]): void {
  found.diagnostics.push(...diagnostics);
  if (item) list.push(item);
}
