import { Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { JsonRpcError, MCP_RELAY_METADATA, McpToolError, type McpCallContext } from '#libs/core';
import { McpCatalog, ToolRegistry, type RegisteredTool } from '#libs/catalog';
import { AccessControl } from '#libs/protocol';
import { Bm25ToolRanker } from './rankers/bm25-tool-ranker';
import type { McpToolRanker } from './rankers/tool-ranker';
import { InjectToolCallRelay, type ToolCallRelay } from './tool-call-relay';
import { InjectToolSearchOptions, type ToolSearchOptions } from './tool-search.options';

/** One tool in a search result: what a model needs to call it. */
interface FoundTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Tool['inputSchema'];
  score: number;
}

/** How many callers' visible tool sets are kept between catalog changes. */
const MAX_CACHED_VIEWS = 256;

/**
 * The tool search meta-tools (`toolSearch` option): `search_tools` ranks the tools the caller
 * may use against a query, `call_tool` calls the one chosen. The ranker indexes the catalog
 * once, and again only after it changed; a search keeps the tools the access policy lets the
 * caller use (cached per view until the catalog changes) before taking the top results, so
 * nobody learns of a tool they could not call. `call_tool` runs the call through the
 * host's own dispatcher as the same principal: the chosen tool's authorization, throttling,
 * confirmation and audit apply as to a direct call, and its progress and questions reach the
 * caller.
 */
/** The client tool search answers for: the model, which declares no extension. */
const FOR_THE_MODEL = { clientCapabilities: undefined };

@Injectable()
export class McpToolSearch implements OnApplicationBootstrap, OnModuleDestroy {
  private ranker: McpToolRanker = new Bm25ToolRanker();
  private indexed = false;
  private readonly views = new Map<string, Set<string>>();
  private unsubscribe?: () => void;

  constructor(
    private readonly catalog: McpCatalog,
    private readonly tools: ToolRegistry,
    @InjectToolCallRelay() private readonly toolCalls: ToolCallRelay,
    private readonly access: AccessControl,
    @InjectToolSearchOptions() private readonly options: ToolSearchOptions | undefined,
  ) {}

  onApplicationBootstrap(): void {
    const options = this.options;
    if (!options) return;
    if (options.ranker) this.ranker = options.ranker;
    if (options.listOnly) {
      const meta = new Set([options.searchToolName, options.callToolName]);
      this.tools.setListFilter((tool) => meta.has(tool.name));
    }
    this.unsubscribe = this.tools.onChange(() => {
      this.indexed = false;
      this.views.clear();
    });
    this.catalog.addTool(
      {
        name: options.searchToolName,
        title: 'Search tools',
        description:
          'Finds the tools that can do what you describe, among all the tools this server has. ' +
          `Returns each match's name, description and input schema; call one with ${options.callToolName}.`,
        input: {
          type: 'object',
          properties: {
            query: { type: 'string', minLength: 1, description: 'What you want to do, in a few words' },
            limit: { type: 'integer', minimum: 1, maximum: options.maxLimit, description: 'How many tools to return' },
          },
          required: ['query'],
          additionalProperties: false,
        },
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      (args: { query: string; limit?: number }, context: McpCallContext) => this.search(args, context),
    );
    this.catalog.addTool(
      {
        name: options.callToolName,
        title: 'Call a tool',
        description: `Calls a tool found with ${options.searchToolName}, with the arguments its input schema asks for.`,
        input: {
          type: 'object',
          properties: {
            name: { type: 'string', minLength: 1, description: 'The tool name search returned' },
            arguments: { type: 'object', description: 'The arguments, as its input schema says' },
          },
          required: ['name'],
          additionalProperties: false,
        },
        annotations: { openWorldHint: true },
      },
      relay((args: { name: string; arguments?: Record<string, unknown> }, context: McpCallContext) =>
        this.call(args, context),
      ),
    );
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  private async search({ query, limit }: { query: string; limit?: number }, context: McpCallContext) {
    const options = this.options!;
    const visible = this.visibleTo(context);
    if (!this.indexed) {
      this.ranker.index(this.tools.all().map(({ definition }) => definition));
      this.indexed = true;
    }
    const hits = await this.ranker.search(query, {
      limit: Math.min(limit ?? options.limit, options.maxLimit),
      filter: (name) => visible.has(name),
    });
    const found: FoundTool[] = hits.flatMap(({ name, score }) => {
      const tool = this.tools.get(name)?.definition;
      if (!tool) return [];
      return [
        {
          name,
          ...(tool.title !== undefined && { title: tool.title }),
          ...(tool.description !== undefined && { description: tool.description }),
          inputSchema: tool.inputSchema,
          score: Math.round(score * 1000) / 1000,
        },
      ];
    });
    return { tools: found };
  }

  private async call(
    { name, arguments: args = {} }: { name: string; arguments?: Record<string, unknown> },
    context: McpCallContext,
  ): Promise<CallToolResult> {
    const options = this.options!;
    if (name === options.callToolName || name === options.searchToolName)
      throw new McpToolError(`${name} is one of the search tools; call the tool ${options.searchToolName} found`);
    try {
      const { result } = await this.toolCalls.send<CallToolResult>(
        'tools/call',
        { name, arguments: args },
        {
          principal: context.caller,
          signal: context.signal,
          ...(context.meta.progressToken !== undefined && {
            onProgress: ({ progress, total, message }) => context.reportProgress(progress, total, message),
          }),
          elicit: (request) => context.elicit(request),
          clientCapabilities: context.clientCapabilities,
          // Recorded as the call it is: on the surface, from the client and the address of call_tool's.
          transport: context.transport,
          clientInfo: context.clientInfo ?? null,
          ...(context.remoteAddress !== undefined && { remoteAddress: context.remoteAddress }),
        },
      );
      return result;
    } catch (error) {
      // An unknown tool, or one the caller may not see: the same answer, naming the search.
      if (error instanceof JsonRpcError)
        throw new McpToolError(`${error.message}. Use ${options.searchToolName} to find the tools you can call.`);
      throw error;
    }
  }

  /**
   * The names of the tools `principal` may use, as the access policy says (the view lists and
   * calls both follow), cached per view until the catalog changes. Listing is not asked: in
   * `listOnly` mode the lists show only the meta-tools. Tool search is for the model: it sees what
   * a client of no extension sees (no tool only MCP Apps views call).
   */
  private visibleTo(context: McpCallContext): Set<string> {
    // The caller's view as its own tools/list would be (governance's list filter included), for the model.
    const view = this.access.view<RegisteredTool>(context.caller, FOR_THE_MODEL, {
      kind: 'tool',
      caller: { principal: context.caller, client: context.clientInfo, transport: context.transport },
    });
    let names = this.views.get(view.key);
    if (!names) {
      if (this.views.size >= MAX_CACHED_VIEWS) this.views.clear();
      const { searchToolName, callToolName } = this.options!;
      names = new Set(
        this.tools
          .all()
          .filter((tool) => tool.name !== searchToolName && tool.name !== callToolName && view.visible(tool))
          .map(({ name }) => name),
      );
      this.views.set(view.key, names);
    }
    return names;
  }
}

/** Marks `handler` as a relay (`MCP_RELAY_METADATA`): what it calls is throttled, not it. */
function relay<T extends (...args: never[]) => unknown>(handler: T): T {
  Reflect.defineMetadata(MCP_RELAY_METADATA, true, handler);
  return handler;
}
