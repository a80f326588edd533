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

/**
 * DNS-rebinding protection: the `Host` must be one of `allowedHosts`, and a browser's `Origin`
 * (when sent) one of `allowedOrigins` (loopback origins by default).
 */
export function checkOriginAndHost(headers: IncomingHttpHeaders, options: OriginHostOptions): HttpRefusal | undefined {
  if (options.allowedHosts) {
    const host = headers.host;
    if (!host || !options.allowedHosts.has(hostName(host)))
      return [
        403,
        JsonRpcErrorCode.INVALID_REQUEST,
        `Forbidden: Host "${host ?? ''}" is not allowed (DNS rebinding protection); add it to allowedHosts`,
      ];
  }
  const origin = headers.origin;
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
