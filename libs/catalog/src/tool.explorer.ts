import { Injectable, Logger, type OnModuleInit, type Type } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { MCP_TOOL_METADATA, McpStartupError, type McpDiagnostic, type McpToolOptions } from '#libs/core';
import type { RegisteredTool } from './interfaces/registered-tool.interface';
import { ToolDefinitionFactory } from './tool-definition.factory';
import { ToolRegistry } from './tool.registry';

/**
 * Finds `@McpTool` methods on every provider at module init and registers them. Method
 * decorators are not indexed by `DiscoveryService`, so each provider's methods are scanned.
 * Request-scoped providers are registered without an instance and resolved per call.
 */
@Injectable()
export class ToolExplorer implements OnModuleInit {
  private readonly logger = new Logger('McpCatalog');

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    private readonly definitions: ToolDefinitionFactory,
    private readonly registry: ToolRegistry,
  ) {}

  onModuleInit(): void {
    const tools: RegisteredTool[] = [];
    const diagnostics: McpDiagnostic[] = [];
    const visited = new Set<Type<object>>();

    for (const wrapper of this.discovery.getProviders()) {
      const metatype = wrapper.metatype as Type<object> | undefined;
      if (!metatype || typeof metatype !== 'function' || !metatype.prototype || visited.has(metatype)) continue;
      const requestScoped = !wrapper.isDependencyTreeStatic();
      const instance = requestScoped ? undefined : (wrapper.instance as object | undefined);
      if (!requestScoped && !instance) continue;
      visited.add(metatype);

      for (const methodName of this.scanner.getAllMethodNames(metatype.prototype)) {
        const method = (metatype.prototype as Record<string, unknown>)[methodName];
        const options = this.reflector.get<McpToolOptions | undefined>(MCP_TOOL_METADATA, method as never);
        if (!options) continue;
        const result = this.definitions.create({ hostClass: metatype, methodName, options, instance });
        diagnostics.push(...result.diagnostics);
        if (result.tool) tools.push(result.tool);
      }
    }
    diagnostics.push(...this.registry.check(tools));
    if (diagnostics.length > 0) throw new McpStartupError(diagnostics);
    this.registry.register(tools);
    this.logger.log(`${tools.length} tool(s) registered`);
  }
}
