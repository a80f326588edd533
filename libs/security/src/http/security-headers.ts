/**
 * The security headers of the host's own HTTP surfaces, in one place: no MIME sniffing and no
 * caching of what answers may hold (call results, metrics, audit records).
 */
export const API_SECURITY_HEADERS = Object.freeze({ 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' });

/** The same as a flat header list, for `writeHead` on the hot path (skips Node's header-object processing). */
export const API_SECURITY_HEADER_LIST: readonly string[] = Object.freeze(Object.entries(API_SECURITY_HEADERS).flat());

/** Pages a browser shows (the dashboard) also refuse to be framed and send no referrer. */
export const PAGE_SECURITY_HEADERS = Object.freeze({
  ...API_SECURITY_HEADERS,
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
});

/** Server-sent event streams: never cached nor transformed by proxies, never sniffed. */
export const SSE_SECURITY_HEADERS = Object.freeze({
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-cache, no-transform',
});
