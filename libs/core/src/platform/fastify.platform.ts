import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpAdapter, HttpPlatform, NodeRequest, NodeRouteHandler, RouteBody, RouteMethod } from './http-platform';

/** The parts of Fastify's request and reply the routes use (`request.raw`, `reply.raw`, `reply.hijack()`). */
interface FastifyRequestLike {
  readonly raw: NodeRequest & { [IN_PROCESS]?: object };
  readonly body?: unknown;
}
interface FastifyReplyLike {
  readonly raw: ServerResponse;
  hijack(): void;
}
type FastifyHandler = (request: FastifyRequestLike, reply: FastifyReplyLike) => void;
type ContentTypeParser = (request: unknown, payload: unknown, done: (error: null, body?: unknown) => void) => void;

/** The part of a Fastify instance used here, as Fastify documents it. */
interface FastifyLike {
  addHook(name: 'onRequest', hook: (request: FastifyRequestLike, reply: unknown, done: () => void) => void): unknown;
  register(plugin: (scope: FastifyLike) => Promise<void>): unknown;
  removeAllContentTypeParsers(): void;
  addContentTypeParser(type: string, parser: ContentTypeParser): void;
  route(options: { method: RouteMethod; url: string; handler: FastifyHandler }): unknown;
  ready(): PromiseLike<unknown>;
  /** The request listener Fastify gives its server: routing, hooks, the handler. */
  routing(req: IncomingMessage, res: ServerResponse): void;
}

type Register = (path: string, handler: FastifyHandler) => unknown;

/** Where a request made in process keeps the properties for Fastify's request object. */
const IN_PROCESS = Symbol('nest-mcp-host/in-process-properties');

/**
 * Fastify: routes get Fastify's request and reply, so each host route takes over the reply
 * (`reply.hijack()`) and answers on Node's response (`reply.raw`), with Node's request
 * (`request.raw`) and the body Fastify parsed as `req.body`. A `stream` route is registered in a
 * plugin scope of its own whose only content-type parser leaves the body unread, for the handler.
 * Requests made in process go through `routing` (the listener Fastify gives its server).
 */
export class FastifyPlatform implements HttpPlatform {
  readonly type = 'fastify';
  private accepting = false;

  constructor(private readonly adapter: HttpAdapter) {}

  private get fastify(): FastifyLike {
    return this.adapter.getInstance<FastifyLike>();
  }

  route(method: RouteMethod, path: string, handler: NodeRouteHandler, body: RouteBody = 'parsed'): void {
    const serve: FastifyHandler = (request, reply) => {
      reply.hijack();
      const req = request.raw;
      if (body === 'parsed' && request.body !== undefined) req.body = request.body;
      handler(req, reply.raw);
    };
    if (body === 'parsed') {
      // Through Nest's adapter, as its own routes are added.
      const register = this.adapter[method.toLowerCase() as Lowercase<RouteMethod>] as Register;
      register.call(this.adapter, path, serve);
      return;
    }
    void this.fastify.register(async (scope) => {
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
      scope.route({ method, url: path, handler: serve });
      return Promise.resolve();
    });
  }

  acceptInProcessRequests(): void {
    if (this.accepting) return;
    try {
      this.fastify.addHook('onRequest', (request, _reply, done) => {
        const properties = request.raw[IN_PROCESS];
        if (properties) Object.assign(request, properties);
        done();
      });
    } catch (error) {
      throw new Error(
        'This Fastify application already listens, and a request made in process needs a request hook added ' +
          'before that (to give its routes request.user). The REST bridge adds it when McpModule exposes a route; ' +
          'otherwise make the first in-process request before app.listen().',
        { cause: error },
      );
    }
    this.accepting = true;
  }

  async dispatch(req: IncomingMessage, res: ServerResponse, properties: object): Promise<void> {
    this.acceptInProcessRequests();
    // Middleware (run by @fastify/middie on Node's request) sees them as on Express.
    Object.assign(req, properties, { [IN_PROCESS]: properties });
    const fastify = this.fastify;
    await fastify.ready();
    fastify.routing(req, res);
  }
}
