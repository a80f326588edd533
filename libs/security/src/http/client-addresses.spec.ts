import type { McpDiagnostic } from '#libs/core';
import { ClientAddresses, resolveTrustProxy } from './client-addresses';

function resolved(value: unknown): { addresses: ClientAddresses; problems: Omit<McpDiagnostic, 'severity'>[] } {
  const problems: Omit<McpDiagnostic, 'severity'>[] = [];
  const addresses = resolveTrustProxy(value, (where, problem, fix) => problems.push({ where, problem, fix }));
  return { addresses, problems };
}

const request = (peer: string | undefined, headers: Record<string, string | string[]> = {}) => ({
  socket: { remoteAddress: peer },
  headers,
});

describe('ClientAddresses', () => {
  it('is the socket peer without trusted proxies, whatever the request claims', () => {
    const { addresses } = resolved(undefined);
    expect(addresses).toBe(ClientAddresses.direct);
    expect(addresses.trustsProxies).toBe(false);
    expect(addresses.of(request('203.0.113.9', { 'x-forwarded-for': '198.51.100.1' }))).toBe('203.0.113.9');
    expect(addresses.of(request(undefined))).toBeUndefined();
  });

  it('believes X-Forwarded-For only from a listed proxy, taking the right-most hop that is no proxy', () => {
    const { addresses } = resolved(['10.0.0.0/8', '127.0.0.1']);
    // From a listed proxy: the client is the hop the proxy appended.
    expect(addresses.of(request('10.1.2.3', { 'x-forwarded-for': '198.51.100.7' }))).toBe('198.51.100.7');
    // A client's own forged hops, left of what the proxy appended, are not believed.
    expect(addresses.of(request('10.1.2.3', { 'x-forwarded-for': '6.6.6.6, 198.51.100.7' }))).toBe('198.51.100.7');
    // Two proxies in a row: both skipped.
    expect(addresses.of(request('127.0.0.1', { 'x-forwarded-for': '198.51.100.7,10.9.9.9' }))).toBe('198.51.100.7');
    // Not from a listed proxy: the header is ignored.
    expect(addresses.of(request('192.0.2.5', { 'x-forwarded-for': '198.51.100.7' }))).toBe('192.0.2.5');
    // A proxy's own request (a health check) has no header: the proxy is the client.
    expect(addresses.of(request('10.1.2.3'))).toBe('10.1.2.3');
    // IPv4-mapped socket addresses (a dual-stack listener) match IPv4 ranges.
    expect(addresses.of(request('::ffff:10.1.2.3', { 'x-forwarded-for': '198.51.100.7' }))).toBe('198.51.100.7');
  });

  it('reads hops with ports, several header lines, and stops at a hop that is no address', () => {
    const { addresses } = resolved(['10.0.0.0/8']);
    expect(addresses.of(request('10.0.0.1', { 'x-forwarded-for': '198.51.100.7:4711' }))).toBe('198.51.100.7');
    expect(addresses.of(request('10.0.0.1', { 'x-forwarded-for': '[2001:db8::7]:4711' }))).toBe('2001:db8::7');
    expect(addresses.of(request('10.0.0.1', { 'x-forwarded-for': '2001:db8::7' }))).toBe('2001:db8::7');
    expect(addresses.of(request('10.0.0.1', { 'x-forwarded-for': ['6.6.6.6', '198.51.100.7, 10.0.0.2'] }))).toBe(
      '198.51.100.7',
    );
    // Every hop a proxy: the left-most.
    expect(addresses.of(request('10.0.0.1', { 'x-forwarded-for': '10.0.0.3, 10.0.0.2' }))).toBe('10.0.0.3');
    // Garbage written by someone: the last hop that was known stands.
    expect(addresses.of(request('10.0.0.1', { 'x-forwarded-for': 'evil, 10.0.0.2' }))).toBe('10.0.0.2');
    expect(addresses.of(request('10.0.0.1', { 'x-forwarded-for': '' }))).toBe('10.0.0.1');
  });

  it("reads RFC 7239 Forwarded's for= when told to, and then ignores X-Forwarded-For", () => {
    const { addresses, problems } = resolved({ proxies: ['192.0.2.10', 'fd00::/8'], header: 'forwarded' });
    expect(problems).toEqual([]);
    const via = (forwarded: string, peer = '192.0.2.10') =>
      addresses.of(request(peer, { forwarded, 'x-forwarded-for': '6.6.6.6' }));
    expect(via('for=198.51.100.7;proto=https;by=192.0.2.10')).toBe('198.51.100.7');
    expect(via('for="[2001:db8:cafe::17]:4711"', 'fd12::1')).toBe('2001:db8:cafe::17');
    expect(via('for=6.6.6.6, For="198.51.100.7:80"')).toBe('198.51.100.7');
    expect(via('for=unknown')).toBe('192.0.2.10');
    expect(via('proto=https')).toBe('192.0.2.10');
  });
});

describe('resolveTrustProxy', () => {
  it('reports every entry that is no address or range, with the fix', () => {
    const { addresses, problems } = resolved(['10.0.0.0/8', '10.0.0.0/33', 'proxy.internal', '::1/129', 7]);
    expect(addresses).toBe(ClientAddresses.direct);
    const fix = "write an address ('127.0.0.1', '::1') or a range ('10.0.0.0/8', 'fd00::/8')";
    expect(problems).toEqual([
      { where: 'trustProxy[1]', problem: '"10.0.0.0/33" is not an IP address or CIDR range', fix },
      { where: 'trustProxy[2]', problem: '"proxy.internal" is not an IP address or CIDR range', fix },
      { where: 'trustProxy[3]', problem: '"::1/129" is not an IP address or CIDR range', fix },
      { where: 'trustProxy[4]', problem: '7 is not an IP address or CIDR range', fix },
    ]);
  });

  it('refuses to trust every hop, an empty list, an unknown header and unknown keys', () => {
    expect(resolved(true).problems).toEqual([
      {
        where: 'trustProxy',
        problem: 'cannot be true: trusting every hop would let any client choose its own address',
        fix: "e.g. trustProxy: ['10.0.0.0/8'] (your load balancers' network), or leave it out",
      },
    ]);
    expect(resolved([]).problems.map(({ where, problem }) => `${where}: ${problem}`)).toEqual([
      'trustProxy: must list at least one proxy address or CIDR range',
    ]);
    expect(
      resolved({ proxies: ['10.0.0.1'], header: 'x-real-ip', hops: 2 }).problems.map(
        ({ where, problem }) => `${where}: ${problem}`,
      ),
    ).toEqual([
      'trustProxy.hops: is not a known option',
      "trustProxy.header: must be 'x-forwarded-for' or 'forwarded', not \"x-real-ip\"",
    ]);
  });
});
