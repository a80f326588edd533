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
}

/** `DELETE /api/tickets/{ticketId}`: how messages and audit records name a route. */
export function routeLabel(route: { method: RestMethod; path: string }): string {
  return `${route.method.toUpperCase()} ${route.path}`;
}
