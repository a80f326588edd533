import { JsonRpcErrorCode } from '#libs/core';
import type { IncomingHttpHeaders } from 'node:http';

/** A refusal: HTTP status, JSON-RPC code, message. */
export type HttpRefusal = readonly [status: number, code: number, message: string];

/** Which `Host` names and browser `Origin`s a host accepts. */
export interface OriginHostOptions {
  /** `undefined`: any host. */
  allowedHosts: ReadonlySet<string> | undefined;
  /** `undefined`: loopback origins only. */
  allowedOrigins: ReadonlySet<string> | undefined;
  /** Origins allowed by CORS are accepted too. */
  cors: { origins: ReadonlySet<string> } | undefined;
}

const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/i;

/** The host name of a `Host` header value, without its port. */
function hostName(host: string): string {
  const end = host.startsWith('[') ? host.indexOf(']') + 1 : host.indexOf(':');
  return (end > 0 ? host.slice(0, end) : host).toLowerCase();
}

/** What the check reads of a request: its headers and its target (`req.url`). */
export interface HttpRequestTarget {
  readonly headers: IncomingHttpHeaders;
  /** The request target: a path (origin-form), or an absolute URL (absolute-form). */
  readonly url?: string;
  /** Express's copy of the target as it came, before a router strips a mount path off `url`. */
  readonly originalUrl?: string;
}

/**
 * The host a request names: the authority of an absolute-form target (`POST http://a.example/mcp`),
 * which RFC 9112 §3.2.2 says a server must use instead of the `Host` header, else the `Host`
 * header. `null`: an absolute-form target that is not an http(s) URL.
 */
function requestedHost({ headers, url: given, originalUrl }: HttpRequestTarget): string | undefined | null {
  const url = originalUrl ?? given;
  if (url === undefined || url.startsWith('/') || url === '*') return headers.host;
  const target = URL.canParse(url) ? new URL(url) : undefined;
  return target && (target.protocol === 'http:' || target.protocol === 'https:') && target.host ? target.host : null;
}

/**
 * DNS-rebinding protection: the host a request names must be one of `allowedHosts` — the
 * `Host` header, or the authority of an absolute-form request line, which takes its place (RFC
 * 9112 §3.2.2), so that `POST http://evil.example/mcp` sent with `Host: localhost` is refused —
 * and a browser's `Origin` (when sent) one of `allowedOrigins` (loopback origins by default).
 */
export function checkOriginAndHost(req: HttpRequestTarget, options: OriginHostOptions): HttpRefusal | undefined {
  if (options.allowedHosts) {
    const host = requestedHost(req);
    if (host === null)
      return [
        403,
        JsonRpcErrorCode.INVALID_REQUEST,
        'Forbidden: the request target is neither a path nor an http(s) URL (DNS rebinding protection)',
      ];
    if (!host || !options.allowedHosts.has(hostName(host)))
      return [
        403,
        JsonRpcErrorCode.INVALID_REQUEST,
        `Forbidden: Host "${host ?? ''}" is not allowed (DNS rebinding protection); add it to allowedHosts`,
      ];
  }
  const origin = req.headers.origin;
  if (origin !== undefined) {
    const lower = origin.toLowerCase();
    const allowed =
      (options.allowedOrigins ? options.allowedOrigins.has(lower) : LOOPBACK_ORIGIN.test(origin)) ||
      options.cors?.origins.has(lower) === true;
    if (!allowed)
      return [
        403,
        JsonRpcErrorCode.INVALID_REQUEST,
        `Forbidden: Origin "${origin}" is not allowed; add it to allowedOrigins`,
      ];
  }
  return undefined;
}
