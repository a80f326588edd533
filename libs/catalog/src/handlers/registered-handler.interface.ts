import type { Type } from '@nestjs/common';
import type { McpCacheHints } from '#libs/core';
import type { CatalogEntry } from '../lists/catalog-list';

/** Where the validated arguments go in the handler's parameter list. */
export interface ArgsBinding {
  index: number;
  /** Set when `@McpArgs('name')` binds a single argument. */
  property?: string;
}

/** A provider method the host invokes: a tool, a prompt, a resource or a resource template. */
export interface RegisteredHandler extends CatalogEntry {
  /** `Class.method`, for messages. */
  readonly where: string;
  readonly hostClass: Type<object>;
  readonly methodName: string;
  /** The provider instance; `undefined` when the provider is request-scoped (resolved per call). */
  readonly instance: object | undefined;
  readonly argsBindings: readonly ArgsBinding[];
  /** Who may see and call it (`@RequireScopes`, `@Roles` on the method or its class). */
  readonly access: AccessRequirements;
  /** The HTTP route it runs, for an entry made from a REST route (`DELETE /api/tickets/{ticketId}`): its audit records name it. */
  readonly route?: string;
  /**
   * The controller method an entry made from one of the app's REST routes runs: what is declared
   * on it (`@McpPolicy`) governs the entry as it governs the route.
   */
  readonly runs?: RouteHandler;
  /** Its `cache` option (2026-07-28 caching hints); absent: the module's default applies. */
  readonly cache?: McpCacheHints;
  /** Where it comes from, when not from a provider of the app (absent: `{ kind: 'local' }`). */
  readonly origin?: McpEntryOrigin;
}

/**
 * Where a catalog entry comes from: a provider of the app (`local`), a REST route of the app
 * (`rest`), an operation of another REST API (`api`, `rest.apis`), or an upstream MCP server
 * (`upstream`); `name` is the API's or the upstream's.
 */
export interface McpEntryOrigin {
  readonly kind: 'local' | 'rest' | 'api' | 'upstream';
  readonly name?: string;
  /**
   * The name its own server knows it by, when the host serves it under another (an upstream's
   * tool behind a prefix): the name an MCP Apps view of that server calls it by.
   */
  readonly ownName?: string;
}

/** A controller's route handler: its class and method. */
export interface RouteHandler {
  readonly hostClass: Type<object>;
  readonly methodName: string;
}

/** Scopes all required, and roles one of which is required (none: open to every caller). */
export interface AccessRequirements {
  readonly scopes: readonly string[];
  readonly roles: readonly string[];
}

export const OPEN_ACCESS: AccessRequirements = Object.freeze({ scopes: [], roles: [] });
