import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/** Where an upstream added at run time may point. */
export interface UpstreamTargetPolicy {
  /** Host names or addresses allowed although they are (or resolve to) private, loopback or link-local addresses. */
  readonly allowHosts: readonly string[];
  /** Allow every private, loopback and link-local address (a host inside a trusted network only). */
  readonly allowPrivateNetworks: boolean;
  /** This host's own HTTP port (the admin API, /metrics and the MCP endpoint listen there), when it listens. */
  readonly ownPort: () => number | undefined;
}

/**
 * What is wrong with an upstream URL an administrator gives at run time (nothing: `[]`). An
 * upstream is reached by the host itself, with its own credentials, from inside its network: a
 * URL that is, or resolves to, a loopback, private, link-local or unique-local address (an
 * internal service, a cloud metadata endpoint) is refused unless allowed, and a URL that points at
 * this host itself (its admin API, its metrics, its own MCP endpoint: a loop) always.
 */
export async function upstreamTargetProblems(given: string, policy: UpstreamTargetPolicy): Promise<string[]> {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    return [`"${given}" is not a URL`];
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return [`use an http(s) URL (got ${url.protocol})`];
  if (url.username || url.password) return ['put credentials in transport.bearer or transport.headers, not in the URL'];
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((found) => found.address);
  } catch {
    return [`the host "${host}" cannot be resolved`];
  }
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const own = policy.ownPort();
  if (own !== undefined && port === own && addresses.some(isOwnAddress))
    return [
      `${url.origin} is this host itself (its admin API, metrics and MCP endpoint): an upstream cannot be the host`,
    ];
  const allowed = policy.allowPrivateNetworks || policy.allowHosts.includes(host);
  const internal = addresses.filter((address) => isInternal(address) && !policy.allowHosts.includes(address));
  if (!allowed && internal.length > 0)
    return [
      `"${host}" is (or resolves to) ${internal[0]}, a private, loopback or link-local address; allow it with virtualServers.allowHosts: ['${host}'] if it is meant`,
    ];
  return [];
}

/** An address of this machine (loopback, unspecified, or one of its interfaces). */
function isOwnAddress(address: string): boolean {
  if (isLoopback(address) || address === '0.0.0.0' || address === '::') return true;
  return Object.values(networkInterfaces()).some((list) => list?.some((entry) => entry.address === address));
}

function isLoopback(address: string): boolean {
  return address.startsWith('127.') || address === '::1' || address.startsWith('::ffff:127.');
}

/** Loopback, RFC 1918, CGNAT, link-local (cloud metadata), unique-local and unspecified addresses. */
function isInternal(address: string): boolean {
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(v4) === 4) {
    const [a, b] = v4.split('.').map(Number);
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 100 && b >= 64 && b <= 127) ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168)
    );
  }
  const lower = address.toLowerCase();
  return lower === '::' || lower === '::1' || /^f[cd]/.test(lower) || /^fe[89ab]/.test(lower);
}
