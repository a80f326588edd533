import { Injectable } from '@nestjs/common';
import { McpStartupError, type McpDiagnostic } from '#libs/core';
import { CatalogMessages } from './catalog.messages';
import type { RegisteredTool } from './interfaces/registered-tool.interface';
import { decodeCursor, encodeCursor } from './pagination/list-cursor';
import { isValidToolName } from './tool-name.rules';

const LIST = 'tools';

/**
 * The tools the host serves. Validates names on registration, reporting every problem at
 * once, and keeps `tools/list` pages serialized until the catalog changes.
 */
@Injectable()
export class ToolRegistry {
  private readonly tools = new Map<string, RegisteredTool>();
  private readonly listeners = new Set<() => void>();
  /** Serialized `tools/list` results by page size and offset; cleared on every change. */
  private pages = new Map<string, string>();
  private ordered: RegisteredTool[] | undefined;

  /** Registers tools; throws `McpStartupError` listing every problem if any is invalid. */
  register(tools: readonly RegisteredTool[]): void {
    const diagnostics = this.check(tools);
    if (diagnostics.length > 0) throw new McpStartupError(diagnostics);
    for (const tool of tools) this.tools.set(tool.name, tool);
    this.changed();
  }

  /** Removes a tool; returns whether it existed. */
  remove(name: string): boolean {
    const removed = this.tools.delete(name);
    if (removed) this.changed();
    return removed;
  }

  get(name: string): RegisteredTool | undefined {
    return this.tools.get(name);
  }

  get size(): number {
    return this.tools.size;
  }

  all(): readonly RegisteredTool[] {
    return (this.ordered ??= [...this.tools.values()]);
  }

  /** Calls `listener` after every change of the catalog; returns an unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The `tools/list` result for `cursor`, as JSON text (serialized once per catalog version).
   * @throws JsonRpcError `-32602` for a cursor this registry did not issue.
   */
  listPage(cursor: unknown, pageSize: number): string {
    const all = this.all();
    const offset = decodeCursor(LIST, cursor, all.length);
    const key = `${pageSize}:${offset}`;
    let page = this.pages.get(key);
    if (page === undefined) {
      const end = offset + pageSize;
      page = JSON.stringify({
        tools: all.slice(offset, end).map((tool) => tool.definition),
        ...(end < all.length && { nextCursor: encodeCursor(LIST, end) }),
      });
      this.pages.set(key, page);
    }
    return page;
  }

  /** The problems registering `tools` would have (bad or duplicate names), without registering them. */
  check(tools: readonly RegisteredTool[]): McpDiagnostic[] {
    const diagnostics: McpDiagnostic[] = [];
    const seen = new Map<string, RegisteredTool>(this.tools);
    for (const tool of tools) {
      if (!isValidToolName(tool.name)) diagnostics.push({ where: tool.where, ...CatalogMessages.invalidName(tool.name) });
      const other = seen.get(tool.name);
      if (other) diagnostics.push({ where: tool.where, ...CatalogMessages.duplicateName(tool.name, other.where) });
      else seen.set(tool.name, tool);
    }
    return diagnostics;
  }

  private changed(): void {
    this.pages = new Map();
    this.ordered = undefined;
    for (const listener of this.listeners) listener();
  }
}
