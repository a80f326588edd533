import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { McpStartupError, type McpDiagnostic } from '#libs/core';
import { CatalogExplorer, ResourceRegistry, ToolRegistry } from '#libs/catalog';
import { MCP_APP_MIME_TYPE, MCP_VIEW_METADATA } from './apps.constants';
import { AppsMessages } from './apps.messages';
import type { McpViewOptions } from './mcp-view-options.interface';
import { compileView } from './view-document';

/**
 * Checks MCP Apps at start-up, once the catalog has found every entry: compiles each `@McpView`
 * (its options checked, its script files read and hashed) and checks that each tool's
 * `ui.resource` names a view of this host; reports every problem at once with its fix.
 */
@Injectable()
export class AppsExplorer implements OnModuleInit {
  private readonly logger = new Logger('McpApps');

  constructor(
    private readonly tools: ToolRegistry,
    private readonly resources: ResourceRegistry,
    // Not used: depending on it makes Nest run this check after the catalog's scan (init hooks
    // run by depth in the dependency tree).
    _catalog: CatalogExplorer,
  ) {}

  onModuleInit(): void {
    const diagnostics: McpDiagnostic[] = [];
    const views: string[] = [];
    for (const resource of this.resources.resources.all()) {
      if (resource.definition.mimeType !== MCP_APP_MIME_TYPE) continue;
      views.push(resource.uri);
      const method = (resource.hostClass.prototype as Record<string, unknown>)[resource.methodName];
      const options =
        typeof method === 'function'
          ? (Reflect.getMetadata(MCP_VIEW_METADATA, method) as McpViewOptions | undefined)
          : undefined;
      if (options) diagnostics.push(...compileView(options, resource.where).diagnostics);
    }
    let linked = 0;
    for (const tool of this.tools.all()) {
      const uri = tool.options.ui?.resource;
      if (typeof uri !== 'string') continue;
      linked++;
      if (!views.includes(uri)) diagnostics.push({ where: tool.where, ...AppsMessages.notAView(uri, views) });
    }
    if (diagnostics.length > 0) throw new McpStartupError(diagnostics);
    if (views.length > 0) this.logger.log(`${views.length} view(s), ${linked} tool(s) with a view`);
  }
}
