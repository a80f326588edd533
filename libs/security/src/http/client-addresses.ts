import type { IncomingHttpHeaders } from 'node:http';
import type { OptionReport } from '#libs/core';
import { AddressRanges, isAddress, parseIpv4 } from './address-ranges';

/**
 * The `trustProxy` option: the load balancers and reverse proxies in front of the host, whose
 * word on the client's address is taken. Their addresses or CIDR ranges, and the header they
 * write the client into (`X-Forwarded-For` unless given).
 */
export type McpTrustProxy = string[] | { proxies: string[]; header?: 'x-forwarded-for' | 'forwarded' };

/** What a client address is read from: Node's request, or any HTTP adapter's with the same fields. */
export interface AddressedRequest {
  readonly headers: IncomingHttpHeaders;
  readonly socket?: { readonly remoteAddress?: string };
}

const HEADERS = ['x-forwarded-for', 'forwarded'] as const;
type ForwardingHeader = (typeof HEADERS)[number];

/**
 * The client address of an HTTP request, the one every address-keyed decision uses: the
 * authentication lock-out, the per-address session and listen-stream caps, throttling of
 * anonymous callers, the aggregation of refusals, the audit record's `remoteAddress`, the
 * admin API's loopback rule.
 *
 * It is the socket's peer, unless that peer is a listed proxy: then the forwarding header is
 * read from the right, hop by hop, and the first address that is not a listed proxy is the
 * client. Proxies append what they saw, so everything left of that hop was written by the
 * client and is never believed. With no proxy listed (the default), headers are never read.
 * The PROXY protocol is not read: put an HTTP proxy that writes `X-Forwarded-For` in front.
 *
 * @example
 * ```ts
 * // in a guard of your own REST routes, keyed as the MCP endpoint keys its lock-out
 * const address = this.moduleRef.get(ClientAddresses, { strict: false }).of(request);
 * ```
 */
export class ClientAddresses {
  /** Believes no header: the socket's peer is the client (no `trustProxy`). */
  static readonly direct = new ClientAddresses(undefined, 'x-forwarded-for');

  /**
   * @param proxies the trusted proxies, compiled once (`undefined`: none)
   * @param header where they write the client's address
   */
  constructor(
    private readonly proxies: AddressRanges | undefined,
    private readonly header: ForwardingHeader,
  ) {}

  /** Whether headers are believed at all (some proxy is listed). */
  get trustsProxies(): boolean {
    return this.proxies !== undefined;
  }

  /** The client's address; `undefined` only when the socket has none (it has closed). */
  of(req: AddressedRequest): string | undefined {
    const peer = req.socket?.remoteAddress;
    if (this.proxies === undefined || peer === undefined || !this.trusted(peer)) return peer;
    const value = req.headers[this.header];
    const hops = Array.isArray(value) ? value.join(',') : value;
    if (!hops) return peer;
    let client = peer;
    let end = hops.length;
    // From the right: each hop was written by the one after it, trusted so far.
    while (end > 0) {
      const start = hops.lastIndexOf(',', end - 1);
      const hop = this.header === 'forwarded' ? forwardedFor(hops, start + 1, end) : plainHop(hops, start + 1, end);
      // A hop that is no address ("unknown", an obfuscated name): the last one known stands.
      if (hop === undefined) return client;
      client = hop;
      if (!this.trusted(hop)) return hop;
      end = start;
    }
    return client;
  }

  private trusted(address: string): boolean {
    return this.proxies!.has(address);
  }
}

/** An `X-Forwarded-For` hop: an address, perhaps with a port (`203.0.113.7:4711`, `[2001:db8::7]:4711`). */
function plainHop(text: string, start: number, end: number): string | undefined {
  return addressOf(text.slice(start, end).trim());
}

/** The `for=` of one `Forwarded` element (RFC 7239): `for=192.0.2.60;proto=https`, `for="[2001:db8::7]:4711"`. */
function forwardedFor(text: string, start: number, end: number): string | undefined {
  for (const pair of text.slice(start, end).split(';')) {
    const equals = pair.indexOf('=');
    if (equals < 0 || pair.slice(0, equals).trim().toLowerCase() !== 'for') continue;
    return addressOf(
      pair
        .slice(equals + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1'),
    );
  }
  return undefined;
}

/** The address of a hop: as it is, without its port (`203.0.113.7:4711`), or out of its brackets (`[2001:db8::7]:4711`). */
function addressOf(hop: string): string | undefined {
  if (isAddress(hop)) return hop;
  if (hop.startsWith('[')) {
    const close = hop.indexOf(']');
    const inside = hop.slice(1, close);
    const rest = hop.slice(close + 1);
    return close > 0 && (rest === '' || /^:\d+$/.test(rest)) && !inside.includes('.') && isAddress(inside)
      ? inside
      : undefined;
  }
  const colon = hop.lastIndexOf(':');
  if (colon < 0 || !/^\d+$/.test(hop.slice(colon + 1))) return undefined;
  const address = hop.slice(0, colon);
  return parseIpv4(address) >= 0 ? address : undefined;
}

const EXAMPLE = "e.g. trustProxy: ['10.0.0.0/8'] (your load balancers' network), or leave it out";

/**
 * Validates `trustProxy`: every entry an IP address or a CIDR range, every problem reported.
 * @returns the compiled list, `ClientAddresses.direct` without the option
 */
export function resolveTrustProxy(value: unknown, report: OptionReport): ClientAddresses {
  if (value === undefined) return ClientAddresses.direct;
  const given = Array.isArray(value) ? { proxies: value } : value;
  if (typeof given !== 'object' || given === null) {
    report(
      'trustProxy',
      value === true
        ? 'cannot be true: trusting every hop would let any client choose its own address'
        : 'must be a list of proxy addresses or CIDR ranges',
      EXAMPLE,
    );
    return ClientAddresses.direct;
  }
  const { proxies, header = 'x-forwarded-for', ...rest } = given as Record<string, unknown>;
  for (const key of Object.keys(rest))
    report(`trustProxy.${key}`, 'is not a known option', 'remove it; known options are: proxies, header');
  if (!HEADERS.includes(header as ForwardingHeader))
    report(
      'trustProxy.header',
      `must be 'x-forwarded-for' or 'forwarded', not ${JSON.stringify(header)}`,
      'name the header your proxy writes; leave it out for X-Forwarded-For',
    );
  const where = Array.isArray(value) ? 'trustProxy' : 'trustProxy.proxies';
  if (!Array.isArray(proxies) || proxies.length === 0) {
    report(where, 'must list at least one proxy address or CIDR range', EXAMPLE);
    return ClientAddresses.direct;
  }
  const list = new AddressRanges();
  let valid = true;
  proxies.forEach((entry: unknown, index) => {
    if (typeof entry !== 'string' || !list.add(entry.trim())) {
      valid = false;
      report(
        `${where}[${index}]`,
        `${JSON.stringify(entry)} is not an IP address or CIDR range`,
        "write an address ('127.0.0.1', '::1') or a range ('10.0.0.0/8', 'fd00::/8')",
      );
    }
  });
  return valid ? new ClientAddresses(list, header as ForwardingHeader) : ClientAddresses.direct;
}
