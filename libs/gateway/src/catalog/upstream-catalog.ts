import { Logger } from '@nestjs/common';
import type {
  CallToolResult,
  Progress,
  Prompt,
  Resource,
  ResourceTemplate,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { UpstreamRpcError } from '../upstream/upstream-errors';
import { McpStartupError, McpToolError, type McpCallContext } from '#libs/core';
import { toolHeaderParams, type McpCatalog, type McpCatalogKind, type ToolHeaderParam } from '#libs/catalog';
import { McpResourceNotifier, resourceNotFound } from '#libs/resources';
import { jsonSchemaChecker } from '#libs/invocation';
import type { CatalogPins, ListedDefinition } from '#libs/governance';
import type { UpstreamOptions } from '../options/upstream.options';
import { passesFilter, UpstreamNamespace } from '../naming/upstream-namespace';
import type { UpstreamConnection } from '../upstream/upstream-connection';
import type { UpstreamListKind } from '../upstream/upstream-link';
import { GatewayMessages } from '../messages/gateway.messages';
import { traceMetaOf } from './trace-propagation';
import { WorkSlices } from './work-slices';

/** The list methods, and the field of their result that holds the items. */
const LISTS = {
  tools: ['tools/list', 'tools'],
  prompts: ['prompts/list', 'prompts'],
  resources: ['resources/list', 'resources'],
  resourceTemplates: ['resources/templates/list', 'resourceTemplates'],
} as const;

/** The catalog kinds each upstream list fills. */
const CATALOG_KINDS: Readonly<Record<UpstreamListKind, readonly McpCatalogKind[]>> = {
  tools: ['tool'],
  prompts: ['prompt'],
  resources: ['resource', 'resourceTemplate'],
};

/** Every list an upstream has. */
const ALL_LISTS: readonly UpstreamListKind[] = ['tools', 'prompts', 'resources'];

/** How long a client's `resources/subscribe` waits for the upstream's before it is answered. */
const SUBSCRIBE_WAIT_MS = 2_000;

/** Where a gateway entry says which upstream it comes from, in its `_meta`. */
export const UPSTREAM_META_KEY = 'nest-mcp-host/upstream';

/** An entry this upstream put in the catalog, and what it was made from (to tell a change). */
interface Registered {
  readonly kind: McpCatalogKind;
  readonly key: string;
  readonly source: string;
}

/**
 * Keeps one upstream's tools, prompts, resources and templates in the gateway's catalog: reads
 * its lists (all pages), keeps what its filters let through under its namespace, and adds,
 * replaces or removes entries so that the catalog matches, which sends `list_changed` to the
 * clients. Each entry's handler relays to the upstream: progress and cancellation of calls,
 * URIs rewritten both ways, the upstream's errors named after it.
 *
 * What an upstream can make it do is bounded: a list is read up to `limits.maxListEntries`
 * entries and `limits.maxListPages` pages, an entry larger than `limits.maxEntryBytes` is left
 * out, a burst of `list_changed` is one read (and one more after the read in progress), and a
 * large list is taken in by slices, the event loop served between them.
 */
export class UpstreamCatalog {
  private readonly logger: Logger;
  private readonly names: UpstreamNamespace;
  private readonly entries = new Map<string, Registered>();
  /** Upstream URIs the gateway subscribed to for its clients (kept for the connection's life, renewed on reconnection). */
  private readonly subscriptions = new Set<string>();
  private readonly stopListening: () => void;
  private syncing: Promise<void> = Promise.resolve();
  /** The lists changes asked to read again, while the read that will do it waits for the one in progress. */
  private queued: { kinds: Set<UpstreamListKind>; done: Promise<void> } | undefined;
  /** Cleared: no sync may add anything any more. */
  private cleared = false;

  constructor(
    private readonly upstream: UpstreamConnection,
    private readonly catalog: McpCatalog,
    private readonly notifier: McpResourceNotifier,
    /** Given when the upstream is pinned: what it lists is reviewed before it is served. */
    private readonly pins?: CatalogPins,
  ) {
    const { name, prefix, separator } = upstream.options;
    this.logger = new Logger(`McpGateway:${name}`);
    this.names = new UpstreamNamespace(name, prefix, separator);
    this.stopListening = notifier.onSubscribed(async (uri) => {
      const upstreamUri = this.names.upstreamUri(uri);
      if (upstreamUri === undefined || this.subscriptions.has(upstreamUri)) return;
      // The client's subscribe waits for the upstream's, but not for an upstream that hangs.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.subscribe(upstreamUri),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, SUBSCRIBE_WAIT_MS))),
      ]);
      clearTimeout(timer);
    });
  }

  /** The upstream said `uri` changed: the clients subscribed to its gateway URI hear of it. */
  resourceUpdated(uri: string): void {
    this.notifier.resourceUpdated(this.names.uri(uri));
  }

  /** Subscribes again, on a new connection, to what the clients had subscribed to. */
  resubscribe(): void {
    const uris = [...this.subscriptions];
    this.subscriptions.clear();
    for (const uri of uris) void this.subscribe(uri);
  }

  /**
   * Subscribes upstream once per URI, however many clients subscribe to it here: the host tells
   * each subscribed session of an update, and no other. Kept until the connection ends.
   */
  private async subscribe(uri: string): Promise<void> {
    this.subscriptions.add(uri);
    try {
      await this.upstream.subscribeResource(uri);
    } catch (error) {
      this.subscriptions.delete(uri);
      this.logger.warn(`cannot subscribe to ${uri} upstream: ${(error as Error).message}`);
    }
  }

  /**
   * Reads the given lists again (all of them by default), one sync at a time. Asked again while a
   * read waits its turn, it joins that read: however many changes the upstream announces during a
   * read, one more read follows it.
   */
  sync(kinds: readonly UpstreamListKind[] = ALL_LISTS): Promise<void> {
    if (this.queued) {
      for (const kind of kinds) this.queued.kinds.add(kind);
      return this.queued.done;
    }
    const queued = { kinds: new Set(kinds), done: Promise.resolve() };
    this.queued = queued;
    queued.done = this.syncing = this.syncing
      .then(() => {
        this.queued = undefined;
        return this.syncNow(ALL_LISTS.filter((kind) => queued.kinds.has(kind)));
      })
      .catch((error: Error) => {
        this.logger.warn(`cannot read the upstream's lists: ${error.message}`);
      });
    return queued.done;
  }

  /** Removes every entry of this upstream from the catalog, and stops relaying subscriptions. */
  clear(): void {
    this.cleared = true;
    this.stopListening();
    this.pins?.release('upstream', this.upstream.options.name);
    for (const entry of this.entries.values()) this.catalog.remove(entry.kind, entry.key);
    this.entries.clear();
  }

  private async syncNow(kinds: readonly UpstreamListKind[]): Promise<void> {
    if (this.cleared) return;
    const options = this.upstream.options;
    const { maxEntryBytes } = options.limits;
    const slices = new WorkSlices();
    // Schemas are checked in engines of this sync's own, dropped with it: an upstream's schemas
    // that are never called cost nothing once they are in (the host compiles a tool's on its first call).
    const check = jsonSchemaChecker();
    const wanted = new Map<
      string,
      { kind: McpCatalogKind; key: string; source: string; add: () => void; listed: ListedDefinition }
    >();
    const want = async (kind: McpCatalogKind, key: string, ownName: string, definition: object, add: () => void) => {
      await slices.pause();
      const source = JSON.stringify(definition);
      const bytes = Buffer.byteLength(source);
      if (bytes > maxEntryBytes)
        return this.logger.error(`${kind} ${key} left out: ${GatewayMessages.entryTooLarge(bytes, maxEntryBytes)}`);
      wanted.set(`${kind}:${key}`, {
        kind,
        key,
        source,
        add,
        listed: { kind, name: ownName, key, definition: definition as Record<string, unknown> },
      });
    };
    if (kinds.includes('tools'))
      for (const tool of await this.listAll('tools')) {
        if (passesFilter(tool.name, options.tools))
          await want('tool', this.names.tool(tool.name), tool.name, tool, () => this.addTool(tool, check));
      }
    if (kinds.includes('prompts'))
      for (const prompt of await this.listAll('prompts')) {
        if (passesFilter(prompt.name, options.prompts))
          await want('prompt', this.names.tool(prompt.name), prompt.name, prompt, () => this.addPrompt(prompt));
      }
    if (kinds.includes('resources')) {
      for (const resource of await this.listAll('resources')) {
        if (passesFilter(resource.uri, options.resources))
          await want('resource', this.names.uri(resource.uri), resource.uri, resource, () =>
            this.addResource(resource),
          );
      }
      for (const template of await this.listAll('resourceTemplates')) {
        if (passesFilter(template.uriTemplate, options.resources))
          await want('resourceTemplate', this.names.uri(template.uriTemplate), template.uriTemplate, template, () =>
            this.addTemplate(template),
          );
      }
    }
    // Pinned: what is listed is reviewed first (a changed definition is quarantined before it is served).
    if (this.pins && options.pin)
      await this.pins.review(
        'upstream',
        options.name,
        options.pin,
        [...wanted.values()].map((entry) => entry.listed),
      );
    const synced = new Set(kinds.flatMap((kind) => CATALOG_KINDS[kind]));
    for (const [id, entry] of this.entries) {
      await slices.pause();
      if (this.cleared) return;
      if (!synced.has(entry.kind)) continue;
      const next = wanted.get(id);
      if (next?.source === entry.source) {
        wanted.delete(id);
        continue;
      }
      this.catalog.remove(entry.kind, entry.key);
      this.entries.delete(id);
    }
    for (const [id, entry] of wanted) {
      await slices.pause();
      if (this.cleared) return;
      try {
        entry.add();
        this.entries.set(id, { kind: entry.kind, key: entry.key, source: entry.source });
      } catch (error) {
        // A clash with a local entry or another upstream, or a schema the host cannot use:
        // that entry is left out, said once, and the others are served.
        const detail =
          error instanceof McpStartupError
            ? error.diagnostics.map((d) => `${d.problem} (${d.fix})`).join('; ')
            : (error as Error).message;
        this.logger.error(`${entry.kind} ${entry.key} left out: ${detail}`);
      }
    }
  }

  private async listAll(kind: 'tools'): Promise<Tool[]>;
  private async listAll(kind: 'prompts'): Promise<Prompt[]>;
  private async listAll(kind: 'resources'): Promise<Resource[]>;
  private async listAll(kind: 'resourceTemplates'): Promise<ResourceTemplate[]>;
  private async listAll(kind: 'tools' | 'prompts' | 'resources' | 'resourceTemplates'): Promise<unknown[]> {
    const capabilities = this.upstream.serverCapabilities();
    const offered = kind === 'resourceTemplates' ? capabilities?.resources : capabilities?.[kind];
    if (!offered) return [];
    const { name, limits } = this.upstream.options;
    const items: unknown[] = [];
    const [method, field] = LISTS[kind];
    let cursor: string | undefined;
    for (let pages = 0; pages === 0 || cursor; pages++) {
      if (pages === limits.maxListPages) {
        this.logger.error(GatewayMessages.tooManyPages(name, field, limits.maxListPages));
        break;
      }
      const page = await this.upstream.call(method, cursor ? { cursor } : {});
      const got = page[field];
      // One at a time, and no further than the limit: a page may hold more than a spread can take.
      if (Array.isArray(got))
        for (const item of got) {
          if (items.length === limits.maxListEntries) {
            this.logger.error(GatewayMessages.tooManyEntries(name, field, limits.maxListEntries));
            return items;
          }
          items.push(item);
        }
      cursor = typeof page.nextCursor === 'string' && page.nextCursor ? page.nextCursor : undefined;
    }
    return items;
  }

  private meta(upstreamName: string, kind: string): Record<string, unknown> {
    return { [UPSTREAM_META_KEY]: { upstream: this.upstream.options.name, [kind]: upstreamName } };
  }

  private access(options: UpstreamOptions) {
    return { scopes: options.scopes, roles: options.roles, origin: { kind: 'upstream' as const, name: options.name } };
  }

  private addTool(tool: Tool, check: (schema: Record<string, unknown>) => void): void {
    const options = this.upstream.options;
    // A schema the host cannot compile would fail the tool's every call (or the host's start):
    // the tool is left out instead, with the reason.
    check(tool.inputSchema as Record<string, unknown>);
    if (tool.outputSchema) check(tool.outputSchema as Record<string, unknown>);
    // Parameters a 2026-07-28 upstream wants mirrored in headers (a malformed mark is the
    // catalog's to report when it registers the tool, with the same schema).
    const headerParams = toolHeaderParams(tool.inputSchema as never, () => undefined);
    this.catalog.addTool(
      {
        name: this.names.tool(tool.name),
        description: tool.description ?? tool.title ?? tool.name,
        ...(tool.title !== undefined && { title: tool.title }),
        input: tool.inputSchema as Record<string, unknown>,
        ...(tool.outputSchema && { output: tool.outputSchema as Record<string, unknown> }),
        ...(tool.annotations && { annotations: tool.annotations }),
        // A tool that says it is destructive is confirmed by a person, as a local one with `confirm`
        // is (whatever the host's `confirmDestructive`), unless the upstream confirms its own.
        ...(tool.annotations?.destructiveHint === true && { confirm: options.confirm === 'destructive' }),
        ...(tool.icons && { icons: tool.icons as never }),
        // One policy with local tools: what the upstream's schema does not declare is refused by
        // name before anything is relayed (the host's own `unknownArguments`), unless the upstream says.
        ...(options.unknownArguments && { unknownArguments: options.unknownArguments }),
        timeoutMs: options.timeoutMs,
        _meta: { ...this.names.toolMeta(tool._meta), ...this.meta(tool.name, 'tool') },
      },
      (args: Record<string, unknown>, context: McpCallContext) => this.callTool(tool.name, args, context, headerParams),
      {
        ...this.access(options),
        // Its own name too: the one the upstream's MCP Apps views call it by.
        origin: { kind: 'upstream', name: options.name, ownName: tool.name },
        route: `upstream ${options.name}: ${tool.name}`,
      },
    );
  }

  private async callTool(
    name: string,
    args: Record<string, unknown>,
    context: McpCallContext,
    headerParams: readonly ToolHeaderParam[],
  ): Promise<CallToolResult> {
    if (this.pins) {
      // A change the upstream announced is reviewed before anything is relayed: a call that
      // arrives between the announcement and the new list waits for it, then is refused if the
      // tool is quarantined (never run against a schema no one reviewed).
      await (this.queued?.done ?? this.syncing);
      const held = this.pins.heldReason('tool', this.names.tool(name));
      if (held !== undefined) throw new McpToolError(held);
    }
    const relay =
      context.meta.progressToken !== undefined
        ? ({ progress, total, message }: Progress) => context.reportProgress(progress, total, message)
        : undefined;
    try {
      const result = await this.upstream.call(
        'tools/call',
        { name, arguments: args, _meta: traceMetaOf(context) },
        context,
        relay,
        headerParams,
      );
      return this.names.rewriteUris(result as CallToolResult);
    } catch (error) {
      throw this.named(error);
    }
  }

  private addPrompt(prompt: Prompt): void {
    this.catalog.addPrompt(
      {
        name: this.names.tool(prompt.name),
        description: prompt.description ?? prompt.title ?? prompt.name,
        ...(prompt.title !== undefined && { title: prompt.title }),
        args: (prompt.arguments ?? []).map((argument) => ({
          name: argument.name,
          ...(argument.description !== undefined && { description: argument.description }),
          ...(argument.required !== undefined && { required: argument.required }),
        })),
        _meta: { ...prompt._meta, ...this.meta(prompt.name, 'prompt') },
      },
      async (args: Record<string, string>, context: McpCallContext) => {
        try {
          const result = await this.upstream.call('prompts/get', { name: prompt.name, arguments: args }, context);
          return this.names.rewriteUris(result);
        } catch (error) {
          throw this.named(error);
        }
      },
      this.access(this.upstream.options),
    );
  }

  private addResource(resource: Resource): void {
    const { uri, size } = resource;
    this.catalog.addResource(
      {
        uri: this.names.uri(uri),
        ...presentationOf(resource),
        ...(size !== undefined && { size }),
        _meta: { ...resource._meta, ...this.meta(uri, 'uri') },
      },
      (_args: never, context: McpCallContext) => this.read(uri, context),
      this.access(this.upstream.options),
    );
  }

  private addTemplate(template: ResourceTemplate): void {
    const { uriTemplate } = template;
    this.catalog.addResourceTemplate(
      {
        uriTemplate: this.names.uri(uriTemplate),
        ...presentationOf(template),
        _meta: { ...template._meta, ...this.meta(uriTemplate, 'uriTemplate') },
      },
      (_variables: Record<string, string>, context: McpCallContext) =>
        this.read(this.names.upstreamUri(context.target) ?? context.target, context),
      this.access(this.upstream.options),
    );
  }

  private async read(uri: string, context: McpCallContext) {
    try {
      const result = await this.upstream.call('resources/read', { uri }, context);
      return this.names.rewriteUris(result);
    } catch (error) {
      // Not found: -32002 from a 2025 upstream, -32602 from a 2026-07-28 one.
      if (error instanceof UpstreamRpcError && (error.code === -32002 || error.code === -32602))
        throw resourceNotFound(context.target);
      throw this.named(error);
    }
  }

  /** The upstream's own JSON-RPC error, as an error the caller can act on, naming the upstream. */
  private named(error: unknown): unknown {
    if (error instanceof UpstreamRpcError)
      return new McpToolError(
        GatewayMessages.upstreamError(this.upstream.options.name, error.message.replace(/^MCP error -?\d+: /, '')),
      );
    return error;
  }
}

/** What a resource or template shows of itself, as the upstream describes it. */
function presentationOf({ name, title, description, mimeType, annotations }: Resource | ResourceTemplate) {
  return {
    name,
    ...(title !== undefined && { title }),
    ...(description !== undefined && { description }),
    ...(mimeType !== undefined && { mimeType }),
    ...(annotations && { annotations: annotations as never }),
  };
}
