import type { Type } from '@nestjs/common';
import { MCP_REQUIRED_SCOPES_METADATA, MCP_ROLES_METADATA } from '#libs/core';
import type { RegisteredHandler, RegisteredTool, ToolRegistry } from '#libs/catalog';

/** What a route is, as the request that reached it says (its handler, and its method and path). */
export interface RouteOf {
  readonly controller: Type<object>;
  readonly handler: (...args: never[]) => unknown;
  /** `POST` */
  readonly method: string;
  /** The route's path as the platform matched it (`/api/tickets/:ticketId`), when it says. */
  readonly path: string | undefined;
}

/** The HTTP methods that read (a route of one of them sets nothing: `appliesTo.sets` passes it by). */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The catalog entry a route of the app is governed as: the tool the REST bridge made of it when
 * it made one (the same entry, so the same policies and guardrails, declared ones included, decide
 * a call of the route and of the tool), else an entry of its own, made once per route:
 * - `name` (`entry.name`, `appliesTo.names`): `Controller.method`;
 * - `origin`: `rest`; `route`: `POST /api/tickets/{ticketId}`;
 * - `annotations.readOnlyHint` for GET, HEAD and OPTIONS; no input schema (it takes any argument:
 *   `appliesTo.sets` governs it unless it reads);
 * - the route's `@RequireScopes` / `@Roles` as its `scopes` and `roles`.
 */
export class RouteEntries {
  /** The bridge's tools by the controller method they run; rebuilt after the catalog changes. */
  private tools: Map<unknown, RegisteredTool> | undefined;
  private readonly own = new WeakMap<object, RegisteredHandler>();

  constructor(private readonly registry: ToolRegistry) {
    registry.onChange(() => (this.tools = undefined));
  }

  entryOf(route: RouteOf): RegisteredHandler {
    const tool = this.bridged().get(route.handler);
    if (tool) return tool;
    let entry = this.own.get(route.handler);
    if (!entry) {
      entry = ownEntry(route);
      this.own.set(route.handler, entry);
    }
    return entry;
  }

  private bridged(): Map<unknown, RegisteredTool> {
    if (!this.tools) {
      this.tools = new Map();
      for (const tool of this.registry.all())
        if (tool.runs)
          this.tools.set((tool.runs.hostClass.prototype as Record<string, unknown>)[tool.runs.methodName], tool);
    }
    return this.tools;
  }
}

function ownEntry({ controller, handler, method, path }: RouteOf): RegisteredHandler {
  const methodName = handler.name;
  const name = `${controller.name}.${methodName}`;
  const merged = (key: string) => [
    ...new Set([
      ...((Reflect.getMetadata(key, controller) as string[] | undefined) ?? []),
      ...((Reflect.getMetadata(key, handler) as string[] | undefined) ?? []),
    ]),
  ];
  return {
    key: name,
    where: name,
    hostClass: controller,
    methodName,
    instance: undefined,
    argsBindings: [],
    access: { scopes: merged(MCP_REQUIRED_SCOPES_METADATA), roles: merged(MCP_ROLES_METADATA) },
    ...(path !== undefined && { route: `${method} ${openApiPath(path)}` }),
    origin: { kind: 'rest' },
    definition: { name, annotations: { readOnlyHint: READS.has(method) } },
  };
}

/** `/api/tickets/:ticketId` as OpenAPI (and the REST bridge's audit records) write it: `/api/tickets/{ticketId}`. */
function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}
