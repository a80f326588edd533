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
  /** The enabled tools served under another name than their own server's, by that own name; rebuilt after a change. */
  private ownNames: Map<string, RegisteredTool[]> | undefined;

  constructor() {
    super('tools', 'tools', 'tool name');
    this.onChange(() => (this.ownNames = undefined));
  }

  /**
   * The enabled tools whose own server calls them `name` while the host serves them under another
   * (an upstream's tools behind a prefix): what an MCP Apps view of that server may mean by it.
   */
  byOwnName(name: string): readonly RegisteredTool[] {
    if (!this.ownNames) {
      this.ownNames = new Map();
      for (const tool of this.all()) {
        const own = tool.origin?.ownName;
        if (own === undefined || own === tool.name) continue;
        const same = this.ownNames.get(own);
        if (same) same.push(tool);
        else this.ownNames.set(own, [tool]);
      }
    }
    return this.ownNames.get(name) ?? [];
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
