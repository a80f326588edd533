import { isIPv6 } from 'node:net';
import { OAuthError } from '../errors/oauth-error';
import type { AuthorizationServerStore } from './authorization-server.store';

/** At most `limit` requests per `windowSec` seconds. */
export interface AddressRateLimit {
  limit: number;
  windowSec: number;
}

/**
 * Who a request is counted against: an IPv4 address (an IPv4-mapped IPv6 one as IPv4), or the /64
 * of an IPv6 address — one host is given a whole /64, so counting its addresses one by one would
 * count nothing.
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
 * Requests counted per client address (its group) in fixed windows, in the authorization
 * server's store so that every replica counts together. Past the limit, `admit` throws the
 * refusal `refused` words, with `Retry-After`.
 */
export class AddressRate {
  constructor(
    private readonly store: AuthorizationServerStore,
    /** The store's key prefix of this count. */
    private readonly prefix: string,
    private readonly rate: AddressRateLimit,
    /** The refusal's description, given the seconds until the window ends. */
    private readonly refused: (retryAfterSec: number) => string,
  ) {}

  /**
   * Counts a request from `address` in its window.
   * @throws OAuthError `too_many_requests` (429, with `Retry-After`) past the limit
   */
  async admit(address: string | undefined, now = Date.now()): Promise<void> {
    const windowMs = this.rate.windowSec * 1000;
    const window = Math.floor(now / windowMs);
    const count = await this.store.increment(`${this.prefix}${addressGroup(address)}:${window}`, windowMs);
    if (count <= this.rate.limit) return;
    const retryAfterSec = Math.max(1, Math.ceil(((window + 1) * windowMs - now) / 1000));
    throw new OAuthError('too_many_requests', this.refused(retryAfterSec), 429, {
      'retry-after': String(retryAfterSec),
    });
  }
}
