import type { Type } from '@nestjs/common';
import type { RestMethod } from '../openapi/rest-operation';

/** One route of a Nest controller, as the application serves it. */
export interface NestRoute {
  readonly controller: Type<object>;
  readonly methodName: string;
  /** `TicketsController.remove`, for messages. */
  readonly where: string;
  readonly method: RestMethod;
  /** The full path as OpenAPI writes it (global prefix and module path included): `/api/tickets/{ticketId}`. */
  readonly path: string;
  /** The module the controller is declared in. */
  readonly module: Type<unknown>;
  /** The route's version when a header selects it (header or media-type versioning); URI versions are in `path`. */
  readonly version?: string;
  /** The header that selects that version, sent with each call. */
  readonly versionHeaders?: Readonly<Record<string, string>>;
}

/** `DELETE /api/tickets/{ticketId}`: how messages and audit records name a route. */
export function routeLabel(route: { method: RestMethod; path: string }): string {
  return `${route.method.toUpperCase()} ${route.path}`;
}

/**
 * How audit records and logs name a controller route: its label, with the version when a
 * header selects it (`GET /api/orders/{orderId} (version 2)`), as two routes then share a path.
 */
export function nestRouteLabel(route: NestRoute): string {
  return route.version === undefined ? routeLabel(route) : `${routeLabel(route)} (version ${route.version})`;
}
