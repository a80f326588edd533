import { Inject } from '@nestjs/common';
import { optionChecks, type OptionReport } from '#libs/core';
import type { McpToolRanker } from './rankers/tool-ranker';

/**
 * Tool search (option `toolSearch` of `McpModule`): two meta-tools for catalogs too large to
 * list to a model — `search_tools` ranks the tools the caller may use against a query, and
 * `call_tool` calls the one it chose, through the same admission as a direct call.
 *
 * @example
 * ```ts
 * McpModule.forRoot({ name: 'gateway', version: '1.0.0', toolSearch: { limit: 8 } })
 * McpModule.forRoot({ name: 'gateway', version: '1.0.0', toolSearch: { listOnly: true } }) // lists only the meta-tools
 * ```
 */
export interface McpToolSearchOptions {
  /** Results a search returns by default (a caller may ask for up to `maxLimit`). @default 5 */
  limit?: number;
  /** @default 20 */
  maxLimit?: number;
  /**
   * List only the two meta-tools: the model finds every other tool through `search_tools` and
   * calls it with `call_tool` (the others stay callable by name for clients that know them).
   * @default false
   */
  listOnly?: boolean;
  /** The ranker: BM25 over names, titles, descriptions and schema properties by default; an `EmbeddingToolRanker` for semantic search. */
  ranker?: McpToolRanker;
  /** @default 'search_tools' */
  searchToolName?: string;
  /** @default 'call_tool' */
  callToolName?: string;
}

/** `McpToolSearchOptions` validated; `undefined` when tool search is off. */
export interface ToolSearchOptions {
  readonly limit: number;
  readonly maxLimit: number;
  readonly listOnly: boolean;
  readonly ranker: McpToolRanker | undefined;
  readonly searchToolName: string;
  readonly callToolName: string;
}

/** Token of the resolved `ToolSearchOptions | undefined`. */
export const MCP_TOOL_SEARCH_OPTIONS = Symbol('MCP:TOOL_SEARCH_OPTIONS');

/** Injects the `ToolSearchOptions` (`undefined` when off). */
export const InjectToolSearchOptions = (): ParameterDecorator => Inject(MCP_TOOL_SEARCH_OPTIONS);

/** The options of `McpModule` this slice reads. */
export const TOOL_SEARCH_OPTION_KEYS = ['toolSearch'] as const;

const KEYS = new Set(['limit', 'maxLimit', 'listOnly', 'ranker', 'searchToolName', 'callToolName']);
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** Validates `toolSearch` (`true` for the defaults). */
export function resolveToolSearchOptions(
  o: Record<string, unknown>,
  report: OptionReport,
): ToolSearchOptions | undefined {
  const given = o.toolSearch;
  if (given === undefined || given === false) return undefined;
  if (given !== true && (typeof given !== 'object' || given === null || Array.isArray(given))) {
    report('toolSearch', 'must be true or an object', 'e.g. toolSearch: { limit: 5 }');
    return undefined;
  }
  const options = given === true ? {} : (given as Record<string, unknown>);
  const check = optionChecks(options, report, 'toolSearch.');
  check.known(KEYS);
  const name = (key: 'searchToolName' | 'callToolName', fallback: string) => {
    const value = options[key] ?? fallback;
    if (typeof value === 'string' && TOOL_NAME.test(value)) return value;
    report(`toolSearch.${key}`, 'must be a tool name (letters, digits, "_", "-", ".")', `e.g. ${key}: '${fallback}'`);
    return fallback;
  };
  const ranker = options.ranker as McpToolRanker | undefined;
  if (ranker !== undefined && (typeof ranker?.index !== 'function' || typeof ranker?.search !== 'function'))
    report(
      'toolSearch.ranker',
      'must have index(tools) and search(query, options)',
      'e.g. ranker: new Bm25ToolRanker()',
    );
  const maxLimit = check.integer('maxLimit', 20, 1, 100);
  const resolved: ToolSearchOptions = {
    limit: check.integer('limit', 5, 1, 100),
    maxLimit,
    listOnly: check.flag('listOnly', false),
    ranker,
    searchToolName: name('searchToolName', 'search_tools'),
    callToolName: name('callToolName', 'call_tool'),
  };
  if (resolved.limit > maxLimit)
    report(
      'toolSearch.limit',
      `(${resolved.limit}) is more than maxLimit (${maxLimit})`,
      'make maxLimit at least limit',
    );
  if (resolved.searchToolName === resolved.callToolName)
    report('toolSearch.callToolName', 'is the name of the search tool too', 'give the two meta-tools different names');
  return resolved;
}
