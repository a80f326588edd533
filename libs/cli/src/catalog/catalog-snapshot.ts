import type { PromptRegistry, RegisteredHandler, ResourceRegistry, ToolRegistry } from '#libs/catalog';

/** Who may use an entry: every scope listed, and one of the roles (none: anyone). */
export interface SnapshotAccess {
  readonly scopes: readonly string[];
  readonly roles: readonly string[];
}

export interface ToolSnapshot {
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: Record<string, unknown>;
  readonly outputSchema?: Record<string, unknown>;
  readonly annotations?: Record<string, unknown>;
  readonly access: SnapshotAccess;
}

export interface PromptSnapshot {
  readonly description?: string;
  readonly arguments: readonly { name: string; required: boolean }[];
  readonly access: SnapshotAccess;
}

export interface ResourceSnapshot {
  readonly description?: string;
  readonly mimeType?: string;
  readonly access: SnapshotAccess;
}

/**
 * The contract a host offers its callers, as `catalog snapshot` writes it: its own tools (its
 * providers' and its REST routes'; not what it relays from upstream servers or other APIs),
 * prompts, resources and resource templates, each by name with its schemas, annotations and
 * access. Keys are sorted: the file changes only where the contract does.
 */
export interface CatalogSnapshot {
  readonly catalogSnapshot: 1;
  readonly tools: Readonly<Record<string, ToolSnapshot>>;
  readonly prompts: Readonly<Record<string, PromptSnapshot>>;
  readonly resources: Readonly<Record<string, ResourceSnapshot>>;
  readonly resourceTemplates: Readonly<Record<string, ResourceSnapshot>>;
}

/** The host's own entries: those it relays from elsewhere have contracts of their own. */
const own = (entry: RegisteredHandler) => entry.origin?.kind !== 'upstream' && entry.origin?.kind !== 'api';

const accessOf = (entry: RegisteredHandler): SnapshotAccess => ({
  scopes: [...entry.access.scopes].sort(),
  roles: [...entry.access.roles].sort(),
});

/** The snapshot of the catalog the registries hold now. */
export function catalogSnapshot(
  tools: ToolRegistry,
  prompts: PromptRegistry,
  resources: ResourceRegistry,
): CatalogSnapshot {
  const byName = <T extends RegisteredHandler, S>(
    entries: readonly T[],
    key: (entry: T) => string,
    map: (entry: T) => S,
  ) =>
    Object.fromEntries(
      entries
        .filter(own)
        .map((entry) => [key(entry), map(entry)] as const)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    );
  return sorted({
    catalogSnapshot: 1,
    tools: byName(
      tools.all(),
      (tool) => tool.definition.name,
      (tool) => ({
        ...(tool.definition.title !== undefined && { title: tool.definition.title }),
        ...(tool.definition.description !== undefined && { description: tool.definition.description }),
        inputSchema: tool.definition.inputSchema as Record<string, unknown>,
        ...(tool.definition.outputSchema !== undefined && {
          outputSchema: tool.definition.outputSchema as Record<string, unknown>,
        }),
        ...(tool.definition.annotations !== undefined && { annotations: { ...tool.definition.annotations } }),
        access: accessOf(tool),
      }),
    ),
    prompts: byName(
      prompts.all(),
      (prompt) => prompt.definition.name,
      (prompt) => ({
        ...(prompt.definition.description !== undefined && { description: prompt.definition.description }),
        arguments: (prompt.definition.arguments ?? []).map((argument) => ({
          name: argument.name,
          required: argument.required === true,
        })),
        access: accessOf(prompt),
      }),
    ),
    resources: byName(
      resources.resources.all(),
      (resource) => resource.definition.uri,
      (resource) => resourceOf(resource.definition, resource),
    ),
    resourceTemplates: byName(
      resources.templates.all(),
      (template) => template.definition.uriTemplate,
      (template) => resourceOf(template.definition, template),
    ),
  }) as CatalogSnapshot;
}

function resourceOf(
  definition: { description?: string; mimeType?: string },
  entry: RegisteredHandler,
): ResourceSnapshot {
  return {
    ...(definition.description !== undefined && { description: definition.description }),
    ...(definition.mimeType !== undefined && { mimeType: definition.mimeType }),
    access: accessOf(entry),
  };
}

/** `value` with every object's keys in order (lists keep theirs): a stable file. */
export function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sorted((value as Record<string, unknown>)[key])]),
  );
}
