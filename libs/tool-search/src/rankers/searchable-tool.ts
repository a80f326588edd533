/**
 * What a tool ranker reads of a tool: the parts of its MCP definition that say what it does.
 * A full `Tool` definition fits as it is (the other fields are ignored).
 * @example
 * ```ts
 * const tool: SearchableTool = {
 *   name: 'github__create_issue',
 *   description: 'Opens a new issue in a repository.',
 *   inputSchema: { type: 'object', properties: { title: { type: 'string' } } },
 * };
 * ```
 */
export interface SearchableTool {
  name: string;
  title?: string;
  description?: string;
  /** A JSON Schema object; its property names and descriptions are searched too. */
  inputSchema?: Record<string, unknown>;
}

/**
 * One result of a tool search: the tool's name and how well it matched. Scores compare hits of
 * the same search only (their scale depends on the ranker and the catalog).
 * @example
 * ```ts
 * const hits: ToolSearchHit[] = [{ name: 'github__create_issue', score: 7.31 }];
 * ```
 */
export interface ToolSearchHit {
  name: string;
  score: number;
}

/**
 * Orders tool names by UTF-16 code units: the same order on every machine and in every locale,
 * which is how rankers break ties.
 * @internal
 * @example
 * ```ts
 * ['b', 'B', 'a'].sort(compareToolNames); // ['B', 'a', 'b']
 * ```
 */
export const compareToolNames = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);

/**
 * One tool per name (the last one given wins), in name order: the list a ranker indexes, so
 * that a tool's position is its id and a lower id wins a tie.
 * @internal
 * @example
 * ```ts
 * uniqueToolsByName([{ name: 'b' }, { name: 'a' }, { name: 'b', description: 'newer' }]);
 * // [{ name: 'a' }, { name: 'b', description: 'newer' }]
 * ```
 */
export function uniqueToolsByName(tools: readonly SearchableTool[]): SearchableTool[] {
  const byName = new Map<string, SearchableTool>();
  for (const tool of tools) byName.set(tool.name, tool);
  return [...byName.values()].sort((x, y) => compareToolNames(x.name, y.name));
}
