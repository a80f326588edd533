import type { IncomingHttpHeaders } from 'node:http';
import type { ResolvedMcpOptions } from '../options/resolved-options';
import { HttpMessages, type HttpRefusal } from './http.messages';

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
export function checkOriginAndHost(headers: IncomingHttpHeaders, options: ResolvedMcpOptions): HttpRefusal | undefined {
  if (options.allowedHosts) {
    const host = headers.host;
    if (!host || !options.allowedHosts.has(hostName(host))) return HttpMessages.forbiddenHost(host ?? '');
  }
  const origin = headers.origin;
  if (origin !== undefined) {
    const lower = origin.toLowerCase();
    const allowed = (options.allowedOrigins ? options.allowedOrigins.has(lower) : LOOPBACK_ORIGIN.test(origin)) || options.cors?.origins.has(lower) === true;
    if (!allowed) return HttpMessages.forbiddenOrigin(origin);
  }
  return undefined;
}
