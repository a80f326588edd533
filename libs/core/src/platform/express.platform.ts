import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpAdapter, HttpPlatform, NodeRouteHandler, RouteMethod } from './http-platform';

type Register = (path: string, handler: NodeRouteHandler) => unknown;

/**
 * Express, and any adapter whose routes get Node's objects: Express's request and response
 * extend Node's, its body parser fills `req.body`, and the app is itself a request listener.
 */
export class ExpressPlatform implements HttpPlatform {
  readonly type: string;

  constructor(private readonly adapter: HttpAdapter) {
    this.type = adapter.getType();
  }

  route(method: RouteMethod, path: string, handler: NodeRouteHandler): void {
    const register = this.adapter[method.toLowerCase() as Lowercase<RouteMethod>] as Register;
    register.call(this.adapter, path, handler);
  }

  acceptInProcessRequests(): void {
    // The request object routes see is the one dispatched: nothing to copy.
  }

  /** Async so that a broken application's throw (Express catches its handlers' own) is the rejection. */
  async dispatch(req: IncomingMessage, res: ServerResponse, properties: object): Promise<void> {
    // Own properties: they survive Express swapping the request's prototype.
    Object.assign(req, properties);
    this.adapter.getInstance<NodeRouteHandler>()(req, res);
  }
}
