import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';
import { InjectHostingOptions, type HostingOptions } from '../options/hosting.options';

const EXPOSED = 'mcp-session-id, mcp-protocol-version, www-authenticate, retry-after';
const ALLOWED_HEADERS =
  'content-type, accept, authorization, x-api-key, mcp-session-id, mcp-protocol-version, last-event-id, traceparent, tracestate, baggage';

/** CORS of the MCP endpoint for the origins the `cors` option lists (browser-based clients). */
@Injectable()
export class HttpCors {
  constructor(@InjectHostingOptions() private readonly options: HostingOptions) {}

  /**
   * Adds CORS headers for a configured origin, and answers its preflight.
   * @returns true when the request was a preflight (and is answered)
   */
  apply(req: IncomingMessage, res: ServerResponse): boolean {
    const origin = req.headers.origin;
    const cors = this.options.cors;
    if (!cors || !origin || !cors.origins.has(origin.toLowerCase())) return false;
    res.setHeader('access-control-allow-origin', origin);
    res.setHeader('vary', 'origin');
    res.setHeader('access-control-expose-headers', EXPOSED);
    if (req.method !== 'OPTIONS') return false;
    res.writeHead(204, {
      'access-control-allow-methods': 'GET, POST, DELETE',
      'access-control-allow-headers': ALLOWED_HEADERS,
      'access-control-max-age': String(cors.maxAgeSec),
    });
    res.end();
    return true;
  }
}
