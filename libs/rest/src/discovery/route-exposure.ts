import {
  MCP_EXPOSE_METADATA,
  MCP_REQUIRED_SCOPES_METADATA,
  MCP_ROLES_METADATA,
  type McpExposeOptions,
} from '#libs/core';
import type { NestRoute } from './nest-route';

/** What the route's and its controller's decorators say about exposing it. */
export interface RouteExposure {
  /** `true`: marked `@McpExpose` (route or controller); `false`: `@McpExpose(false)` on the route; `undefined`: neither. */
  readonly marked: boolean | undefined;
  /** The route's `@McpExpose` options over its controller's. */
  readonly overrides: McpExposeOptions;
  /** `@RequireScopes` / `@Roles` of the route and its controller, merged. */
  readonly scopes: readonly string[];
  readonly roles: readonly string[];
}

export function exposureOf(route: NestRoute): RouteExposure {
  const handler = (route.controller.prototype as Record<string, unknown>)[route.methodName] as object;
  const onRoute = Reflect.getMetadata(MCP_EXPOSE_METADATA, handler) as McpExposeOptions | false | undefined;
  const onController = Reflect.getMetadata(MCP_EXPOSE_METADATA, route.controller) as
    McpExposeOptions | false | undefined;
  const merged = <T>(key: string) => [
    ...new Set([
      ...((Reflect.getMetadata(key, route.controller) as T[] | undefined) ?? []),
      ...((Reflect.getMetadata(key, handler) as T[] | undefined) ?? []),
    ]),
  ];
  return {
    // The route's own word wins; else a marked controller marks its routes.
    marked: onRoute !== undefined ? onRoute !== false : onController ? true : undefined,
    overrides: { ...(onController || {}), ...(onRoute || {}) },
    scopes: merged<string>(MCP_REQUIRED_SCOPES_METADATA),
    roles: merged<string>(MCP_ROLES_METADATA),
  };
}
