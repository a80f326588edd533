import { isIPv6 } from 'node:net';
import { OAuthError } from '../errors/oauth-error';
import type { DynamicRegistrationLimits } from '../options/client-options';
import type { AuthorizationServerStore } from '../state/authorization-server.store';

/** The store's key prefix of registered clients (counted against `maxClients`). */
export const CLIENT_PREFIX = 'client:';

/**
 * Who a registration is counted against: an IPv4 address (an IPv4-mapped IPv6 one as IPv4), or
 * the /64 of an IPv6 address — one host is given a whole /64, so counting its addresses one by one
 * would count nothing.
 */
export function addressGroup(address: string | undefined): string {
  if (!address) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  if (!isIPv6(address)) return address;
  const [head, tail = ''] = address.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

/**
 * The bounds of RFC 7591 registration, kept in the authorization server's store so that every
 * replica counts together: registrations per client address in fixed windows, and registered
 * clients in all. Each refusal is an `OAuthError` the endpoint answers and audits.
 */
export class RegistrationQuota {
  constructor(
    private readonly limits: Exclude<DynamicRegistrationLimits, false>,
    private readonly store: AuthorizationServerStore,
  ) {}

  /**
   * Counts a registration from `address` in its window.
   * @throws OAuthError `too_many_requests` (429, with `Retry-After`) past `perAddress.limit`
   */
  async admit(address: string | undefined, now = Date.now()): Promise<void> {
    const rate = this.limits.perAddress;
    if (!rate) return;
    const windowMs = rate.windowSec * 1000;
    const window = Math.floor(now / windowMs);
    const count = await this.store.increment(`regrate:${addressGroup(address)}:${window}`, windowMs);
    if (count <= rate.limit) return;
    const retryAfterSec = Math.max(1, Math.ceil(((window + 1) * windowMs - now) / 1000));
    throw new OAuthError(
      'too_many_requests',
      `this address registered ${rate.limit} clients in the last ${rate.windowSec} s (dynamicRegistration.perAddress): ` +
        `try again in ${retryAfterSec} s, or reuse the registration the client already has`,
      429,
      { 'retry-after': String(retryAfterSec) },
    );
  }

  /**
   * Whether another client may be kept.
   * @throws OAuthError `temporarily_unavailable` (503) when `maxClients` are registered
   */
  async ensureRoom(): Promise<void> {
    const kept = await this.store.count(CLIENT_PREFIX);
    if (kept < this.limits.maxClients) return;
    throw new OAuthError(
      'temporarily_unavailable',
      `this authorization server keeps at most ${this.limits.maxClients} registered clients (dynamicRegistration.maxClients) ` +
        `and has them: unused ones are forgotten after ${this.limits.unusedTtlSec} s; try later, ask its administrator, ` +
        'or use a client ID metadata document',
      503,
    );
  }
}
