import { Injectable, Logger } from '@nestjs/common';
import { McpStartupError, type McpDiagnostic } from '#libs/core';
import { CatalogList } from '../lists/catalog-list';
import { CatalogMessages } from '../messages/catalog.messages';
import { schemaPortabilityIssues } from '../schema/schema-portability';
import type { RegisteredTool } from './registered-tool.interface';
import { isValidToolName } from './tool-name.rules';

/**
 * The tools the host serves. Validates names on registration, reporting every problem at
 * once, warns (a line per tool) about schemas strict clients would refuse, and keeps
 * `tools/list` pages serialized until the catalog changes.
 */
@Injectable()
export class ToolRegistry extends CatalogList<RegisteredTool> {
  private readonly logger = new Logger('McpCatalog');

  constructor() {
    super('tools', 'tools', 'tool name');
  }

  /**
   * Adds tools (see `CatalogList.add`): the catalog's scan at start-up, and tools added at run
   * time. A tool whose input or output schema a strict client (Gemini's schema subset, OpenAI's
   * strict mode, the MCP Inspector's `--strict`) would refuse is served all the same, with a
   * warning naming the tool, each place (a JSON pointer) and its fix.
   */
  override add(tools: readonly RegisteredTool[]): void {
    super.add(tools);
    for (const tool of tools) {
      const issues = [
        ...located('inputSchema', schemaPortabilityIssues(tool.definition.inputSchema)),
        ...(tool.definition.outputSchema
          ? located('outputSchema', schemaPortabilityIssues(tool.definition.outputSchema))
          : []),
      ];
      if (issues.length > 0) this.logger.warn(CatalogMessages.unportableSchema(tool.name, issues));
    }
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

function located(
  which: 'inputSchema' | 'outputSchema',
  issues: ReturnType<typeof schemaPortabilityIssues>,
): { where: string; problem: string; fix: string }[] {
  return issues.map(({ pointer, problem, fix }) => ({ where: `${which}#${pointer}`, problem, fix }));
}
