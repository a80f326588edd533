import type { IncomingMessage, ServerResponse } from 'node:http';
import { PAGE_SECURITY_HEADERS } from '#libs/security';
import { AdminAssets, type AdminAsset } from './admin-assets';

/** Sent with everything the dashboard serves (the script and style sheet replace `cache-control`). */
export const DASHBOARD_HEADERS = PAGE_SECURITY_HEADERS;
/** Data is never a document: nothing may run or load from it. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";
/** The page's: its script and style sheet are files under the admin path, nothing is inline. */
export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
/**
 * The script and style sheet may be kept, but are revalidated on every use (`If-None-Match`,
 * answered 304 while their hash is the same), so an upgraded host is never served stale files.
 */
export const ASSET_CACHE_CONTROL = 'no-cache';

/**
 * Writes a whole answer of the dashboard's (or of a stdio host's approval page) with its
 * security headers.
 * @example
 * ```ts
 * sendDashboard(res, 200, 'text/html; charset=utf-8', page, { 'content-security-policy': PAGE_CSP });
 * ```
 */
export function sendDashboard(
  res: ServerResponse,
  status: number,
  type: string,
  body: string,
  headers: Record<string, string>,
): void {
  res.removeHeader('x-powered-by');
  res.writeHead(status, {
    ...DASHBOARD_HEADERS,
    ...headers,
    'content-type': type,
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

/** A JSON answer of the dashboard's API. */
export function sendDashboardJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendDashboard(res, status, 'application/json; charset=utf-8', JSON.stringify(body), {
    'content-security-policy': API_CSP,
    ...headers,
  });
}

/** The dashboard's script or style sheet: whole, or 304 when the browser's copy is the current one. */
export function sendDashboardAsset(req: IncomingMessage, res: ServerResponse, asset: AdminAsset): void {
  const headers = { 'content-security-policy': API_CSP, 'cache-control': ASSET_CACHE_CONTROL, etag: asset.etag };
  if (!AdminAssets.notModified(asset, req.headers['if-none-match']))
    return sendDashboard(res, 200, asset.contentType, asset.body, headers);
  // No Content-Length on a 304: it would have to be the full body's (RFC 9110, 8.6).
  res.removeHeader('x-powered-by');
  res.writeHead(304, { ...DASHBOARD_HEADERS, ...headers });
  res.end();
}
