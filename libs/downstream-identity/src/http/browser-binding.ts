import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** The longest a connect flow's browser cookie lives: the API's sign-in takes minutes, not hours. */
const MAX_AGE_SEC = 600;

/**
 * How a connect flow remembers the browser that passed the company-IdP check: the name of the
 * cookie it was given, and the SHA-256 of its value (the value itself is only in that browser).
 */
export interface BoundBrowser {
  cookie: string;
  hash: string;
}

/**
 * Binds the second leg of the connect flow (the API's authorization server's redirect back to
 * `<path>/callback`) to the browser that passed the company-IdP check on the link (RFC 6749
 * §10.12): that browser gets a random cookie of its own for this flow, and the callback is taken
 * only from a browser that presents it. Whoever else lands on the callback with the flow's `state`
 * — the person an authorization URL was forwarded to, a browser a callback URL was carried to — is
 * refused before the code is redeemed.
 *
 * The cookie is `HttpOnly`, `SameSite=Lax` (the callback is a cross-site top-level navigation, which
 * `Strict` would strip), lives at most 10 minutes, is spent by the callback, and one per flow (a
 * person connecting two APIs at once keeps both). Over https it is a `__Host-` cookie (`Secure`,
 * `Path=/`, no `Domain`: no other host of the site can set or overwrite it); over plain http (a
 * loopback host) it is scoped to the connect pages' path.
 */
export class BrowserBinding {
  private readonly secure: boolean;
  private readonly prefix: string;
  private readonly path: string;
  private readonly maxAgeSec: number;

  /**
   * @param publicUrl the connect pages' public origin (`https://mcp.desk.example`)
   * @param path the connect pages' path (`/connect`)
   * @param ttlMs how long a connection in progress is kept
   */
  constructor(publicUrl: string, path: string, ttlMs: number) {
    this.secure = new URL(publicUrl).protocol === 'https:';
    this.prefix = this.secure ? '__Host-mcp-connect-' : 'mcp-connect-';
    this.path = this.secure ? '/' : path;
    this.maxAgeSec = Math.min(MAX_AGE_SEC, Math.ceil(ttlMs / 1000));
  }

  /** A new binding: what the flow keeps, and the `Set-Cookie` header that gives the browser its half. */
  issue(): { bound: BoundBrowser; setCookie: string } {
    const cookie = `${this.prefix}${randomBytes(12).toString('base64url')}`;
    const value = randomBytes(32).toString('base64url');
    return { bound: { cookie, hash: digest(value) }, setCookie: this.header(cookie, value, this.maxAgeSec) };
  }

  /** Whether the request comes from the browser the flow was bound to. */
  holds(headers: IncomingHttpHeaders, bound: BoundBrowser): boolean {
    const value = cookiesOf(headers).get(bound.cookie);
    return value !== undefined && this.matches(value, bound);
  }

  /** The connect cookies a browser presents (its other flows), name and value. */
  presented(headers: IncomingHttpHeaders): [cookie: string, value: string][] {
    return [...cookiesOf(headers)].filter(([name]) => name.startsWith(this.prefix));
  }

  /** Whether `value` is the browser's half of `bound`. */
  matches(value: string, bound: BoundBrowser): boolean {
    return timingSafeEqual(Buffer.from(digest(value), 'hex'), Buffer.from(bound.hash, 'hex'));
  }

  /** The `Set-Cookie` header that spends a flow's cookie. */
  spend(cookie: string): string {
    return this.header(cookie, '', 0);
  }

  private header(cookie: string, value: string, maxAgeSec: number): string {
    return `${cookie}=${value}; Path=${this.path}; Max-Age=${maxAgeSec}; HttpOnly; SameSite=Lax${this.secure ? '; Secure' : ''}`;
  }
}

const digest = (value: string) => createHash('sha256').update(value).digest('hex');

/** The request's cookies by name (the first of a repeated name, as browsers send the most specific first). */
function cookiesOf(headers: IncomingHttpHeaders): Map<string, string> {
  const found = new Map<string, string>();
  for (const pair of (headers.cookie ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at < 1) continue;
    const name = pair.slice(0, at).trim();
    if (!found.has(name)) found.set(name, pair.slice(at + 1).trim());
  }
  return found;
}
