import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpAdapterHost } from '@nestjs/core';

/** The application's HTTP adapter, as `HttpAdapterHost` holds it. */
export type HttpAdapter = NonNullable<HttpAdapterHost['httpAdapter']>;

/** Node's request, with the body the platform parsed (a JSON object) when it parsed one. */
export type NodeRequest = IncomingMessage & { body?: unknown };

/** A route handler on Node's own request and response, whatever the platform. */
export type NodeRouteHandler = (req: NodeRequest, res: ServerResponse) => void;

/** The methods the host's routes answer. */
export type RouteMethod = 'GET' | 'POST' | 'DELETE' | 'OPTIONS';

/**
 * What the host's routes ask of the request body: `parsed`, the platform's JSON parser fills
 * `req.body` (the admin API's decisions); `stream`, the handler reads the body itself, within its
 * own limit (the MCP endpoint) — where the platform allows it: Express's body parser runs before
 * every route, so there `req.body` may already hold the parsed JSON.
 */
export type RouteBody = 'parsed' | 'stream';

/**
 * The one place that knows how the Nest HTTP platforms differ (Express, Fastify): the host's own
 * routes (the admin dashboard, metrics, the MCP endpoint as a route) are written once against
 * Node's `IncomingMessage` and `ServerResponse`, and requests made in process (the REST bridge)
 * go through whichever framework the application runs on. No platform's code is loaded here: the
 * adapter's instance is used through the few methods each framework documents.
 *
 * @internal
 */
export interface HttpPlatform {
  /** `express`, `fastify`, or another adapter's type (served as Express is: Node objects in its routes). */
  readonly type: string;
  /** Adds a route whose handler gets Node's request and response; the handler answers on the response itself. */
  route(method: RouteMethod, path: string, handler: NodeRouteHandler, body?: RouteBody): void;
  /**
   * Lets requests made in process carry properties to the request object the application's routes
   * see (`request.user` for its guards). Fastify builds that object itself, so a hook copies them;
   * it can only be added while the application is being set up (before it listens).
   * @throws Error when it is too late for that
   */
  acceptInProcessRequests(): void;
  /**
   * Runs a request made in process through the application's whole HTTP stack (middleware,
   * routing, guards, interceptors, pipes, filters), with `properties` on the request object its
   * routes see. Resolves once the application has the request; the answer comes on `res`.
   */
  dispatch(req: IncomingMessage, res: ServerResponse, properties: object): Promise<void>;
}
