import { Injectable } from '@nestjs/common';
import {
  McpStartupError,
  type McpDiagnostic,
  type McpPromptOptions,
  type McpResourceOptions,
  type McpResourceTemplateOptions,
  type McpToolOptions,
} from '#libs/core';
import { dynamicHost, type McpDynamicHandler } from './dynamic-handler';
import type { McpEntryOrigin, RouteHandler } from '../handlers/registered-handler.interface';
import { PromptDefinitionFactory } from '../prompts/prompt-definition.factory';
import { PromptRegistry } from '../prompts/prompt.registry';
import { ResourceDefinitionFactory } from '../resources/resource-definition.factory';
import { ResourceRegistry } from '../resources/resource.registry';
import { ToolDefinitionFactory } from '../tools/tool-definition.factory';
import { ToolRegistry } from '../tools/tool.registry';
import { catalogListOf, type McpCatalogKind } from './catalog-lists';
import { InjectCatalogToggles, type CatalogToggles } from './catalog-toggles';

/** Who may use an entry added at run time, and the HTTP route it runs (see `McpCatalog.addTool`). */
export interface McpEntryAccess {
  /** Scopes the caller must all hold. */
  readonly scopes?: readonly string[];
  /** Roles one of which the caller must hold. */
  readonly roles?: readonly string[];
  /** The HTTP route the entry runs (`DELETE /api/tickets/{ticketId}`), named in its audit records. */
  readonly route?: string;
  /** Where it comes from (a REST route, another API, an upstream server); absent: the app itself. */
  readonly origin?: McpEntryOrigin;
  /** The controller method it runs, for an entry made from one of the app's REST routes. */
  readonly runs?: RouteHandler;
}

export type { McpCatalogKind };

const HEADLINE = 'Cannot add to the MCP catalog';

/**
 * The catalog at run time: add, remove, enable and disable tools, prompts and resources while
 * the host runs (the decorators are the static path). Every change invalidates the cached
 * list pages and sends `notifications/{tools,prompts,resources}/list_changed` to clients.
 * Entries added here are validated exactly like decorated ones and run through Nest's global
 * guards, interceptors, pipes and filters. With the `cluster` option, `enable` and `disable` apply
 * on every replica (see `CatalogToggles`); what is added or removed stays this replica's.
 *
 * @example
 * ```ts
 * constructor(private readonly catalog: McpCatalog) {}
 *
 * onTenantEnabled(tenant: string) {
 *   this.catalog.addTool(
 *     { name: `${tenant}_status`, description: `Status of ${tenant}`, input: z.object({ verbose: z.boolean().optional() }) },
 *     ({ verbose }) => this.status.of(tenant, verbose),
 *   );
 * }
 * ```
 */
@Injectable()
export class McpCatalog {
  constructor(
    private readonly tools: ToolRegistry,
    private readonly prompts: PromptRegistry,
    private readonly resources: ResourceRegistry,
    private readonly toolDefinitions: ToolDefinitionFactory,
    private readonly promptDefinitions: PromptDefinitionFactory,
    private readonly resourceDefinitions: ResourceDefinitionFactory,
    @InjectCatalogToggles() private readonly toggles: CatalogToggles,
  ) {}

  /**
   * Adds a tool; the handler gets the validated arguments (when `input` is given) and the call context.
   * @param entry who may see and call it (all `scopes`, one of `roles`), as `@RequireScopes` /
   *   `@Roles` say for a decorated tool; and the HTTP `route` it runs, if any, for its audit records
   */
  addTool(options: McpToolOptions & { name: string }, handler: McpDynamicHandler<never>, entry?: McpEntryAccess): void {
    const { tool, diagnostics } = this.toolDefinitions.create({
      ...dynamicHost(handler, options.input !== undefined),
      options,
      ...accessOf(entry),
    });
    const added =
      tool && (entry?.route !== undefined || entry?.origin !== undefined || entry?.runs !== undefined)
        ? {
            ...tool,
            ...(entry.route !== undefined && { route: entry.route }),
            ...(entry.origin && { origin: entry.origin }),
            ...(entry.runs && { runs: entry.runs }),
          }
        : tool;
    this.commit(
      diagnostics,
      () => this.tools.check(added ? [added] : []),
      () => this.tools.add([added!]),
    );
  }

  /**
   * Adds a prompt; the handler gets its (string) arguments and the call context.
   * @param entry who may see and get it (all `scopes`, one of `roles`)
   */
  addPrompt(
    options: McpPromptOptions & { name: string },
    handler: McpDynamicHandler<never>,
    entry?: Omit<McpEntryAccess, 'route'>,
  ): void {
    const { prompt, diagnostics } = this.promptDefinitions.create({
      ...dynamicHost(handler, options.args !== undefined),
      options,
      ...accessOf(entry),
    });
    const added = withOrigin(prompt, entry);
    this.commit(
      diagnostics,
      () => this.prompts.duplicates(added ? [added] : []),
      () => this.prompts.add([added!]),
    );
  }

  /**
   * Adds a resource at a fixed URI.
   * @param entry who may see and read it (all `scopes`, one of `roles`)
   */
  addResource(
    options: McpResourceOptions,
    handler: McpDynamicHandler<never>,
    entry?: Omit<McpEntryAccess, 'route'>,
  ): void {
    const { resource, diagnostics } = this.resourceDefinitions.createResource({
      ...dynamicHost(handler, false),
      options,
      ...accessOf(entry),
    });
    const added = withOrigin(resource, entry);
    this.commit(
      diagnostics,
      () => this.resources.check(added ? [added] : [], []),
      () => this.resources.resources.add([added!]),
    );
  }

  /**
   * Adds a resource template; the handler gets the URI's variables and the call context.
   * @param entry who may see and read it (all `scopes`, one of `roles`)
   */
  addResourceTemplate(
    options: McpResourceTemplateOptions,
    handler: McpDynamicHandler<never>,
    entry?: Omit<McpEntryAccess, 'route'>,
  ): void {
    const { template, diagnostics } = this.resourceDefinitions.createTemplate({
      ...dynamicHost(handler, true),
      options,
      ...accessOf(entry),
    });
    const added = withOrigin(template, entry);
    this.commit(
      diagnostics,
      () => this.resources.check([], added ? [added] : []),
      () => this.resources.templates.add([added!]),
    );
  }

  /** Removes an entry (tool or prompt name, resource URI, or URI template); false if there was none. */
  remove(kind: McpCatalogKind, key: string): boolean {
    return this.list(kind).remove(key);
  }

  /** Serves an entry again after `disable` (on every replica, with the `cluster` option). */
  enable(kind: McpCatalogKind, key: string): boolean {
    return this.toggles.set(kind, key, true);
  }

  /**
   * Hides an entry from lists and refuses calls to it as if it did not exist, until `enable` (on
   * every replica, with the `cluster` option).
   */
  disable(kind: McpCatalogKind, key: string): boolean {
    return this.toggles.set(kind, key, false);
  }

  private list(kind: McpCatalogKind) {
    return catalogListOf(kind, this.tools, this.prompts, this.resources);
  }

  private commit(diagnostics: McpDiagnostic[], check: () => McpDiagnostic[], add: () => void): void {
    const problems = diagnostics.length > 0 ? diagnostics : check();
    if (problems.length > 0) throw new McpStartupError(problems, HEADLINE);
    add();
  }
}

/** The access requirements of a run-time entry, copied (the caller may change its arrays). */
function accessOf(entry: Omit<McpEntryAccess, 'route'> | undefined) {
  return entry ? { access: { scopes: [...(entry.scopes ?? [])], roles: [...(entry.roles ?? [])] } } : {};
}

/** A prompt's or resource's entry with the origin its adder gave. */
function withOrigin<T extends object>(entry: T | undefined, given: Omit<McpEntryAccess, 'route'> | undefined) {
  return entry && given?.origin ? { ...entry, origin: given.origin } : entry;
}
