import { Injectable } from '@nestjs/common';
import { McpStartupError, type McpDiagnostic } from '#libs/core';
import { CatalogList } from '../lists/catalog-list';
import { CatalogMessages } from '../messages/catalog.messages';
import type { RegisteredTool } from './registered-tool.interface';
import { isValidToolName } from './tool-name.rules';

/**
 * The tools the host serves. Validates names on registration, reporting every problem at
 * once, and keeps `tools/list` pages serialized until the catalog changes.
 */
@Injectable()
export class ToolRegistry extends CatalogList<RegisteredTool> {
  constructor() {
    super('tools', 'tools', 'tool name');
  }

  /** Registers tools; throws `McpStartupError` listing every problem if any is invalid. */
  register(tools: readonly RegisteredTool[]): void {
    const diagnostics = this.check(tools);
    if (diagnostics.length > 0) throw new McpStartupError(diagnostics);
    this.add(tools);
  }

  /** The problems registering `tools` would have (bad or duplicate names), without registering them. */
  check(tools: readonly RegisteredTool[]): McpDiagnostic[] {
    const invalid = tools
      .filter((tool) => !isValidToolName(tool.name))
      .map((tool) => ({ where: tool.where, ...CatalogMessages.invalidName(tool.name) }));
    return [...invalid, ...this.duplicates(tools)];
  }
}
