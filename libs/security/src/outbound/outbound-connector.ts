import type { LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import type { Agent, buildConnector } from 'undici';
import type { OutboundPolicy } from './outbound-policy';

/** undici, loaded with the first guarded connection: a host that makes none never loads it. */
export function undici(): typeof import('undici') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('undici') as typeof import('undici');
}

/**
 * The `lookup` of a guarded socket (`net.connect`, `tls.connect`, `http.request`): the name is
 * resolved for this connection (never from an earlier check, so that a second answer cannot
 * rebind it), and every address it resolves to is checked against `policy` with `port` before
 * the socket connects to any of them. An address literal never comes here (Node connects to it
 * without a lookup): `guardedConnector` checks those.
 */
export function guardedLookup(policy: OutboundPolicy, port: number): LookupFunction {
  return (hostname, options, callback) => {
    const answer = callback as (error: Error | null, address: string | LookupAddress[], family?: number) => void;
    policy.resolve(hostname).then(
      (resolved) => {
        const refusal = policy.refusal(
          hostname,
          resolved.map(({ address }) => address),
          port,
        );
        if (refusal) return answer(policy.refuse(refusal), '');
        const family = familyOf(options.family);
        const addresses = family ? resolved.filter((address) => address.family === family) : [...resolved];
        if (addresses.length === 0)
          return answer(Object.assign(new Error(`no IPv${family} address`), { code: 'ENOTFOUND' }), '');
        if (options.all) answer(null, addresses);
        else answer(null, addresses[0].address, addresses[0].family);
      },
      (error: Error) => answer(error, ''),
    );
  };
}

/** `4`, `6` or `0` (either) from what `net` passes as a lookup's family. */
function familyOf(family: number | string | undefined): number {
  if (family === 'IPv4' || family === 4) return 4;
  if (family === 'IPv6' || family === 6) return 6;
  return 0;
}

/**
 * The refusal of connecting to `host` on `port` when `host` is an address literal its policy
 * refuses (Node connects to a literal without a lookup, so `guardedLookup` never sees it): the
 * error to fail the connection with, already reported; `undefined` for a name or an address allowed.
 */
export function literalRefusal(policy: OutboundPolicy, host: string, port: number): Error | undefined {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (!isIP(bare)) return undefined;
  const refusal = policy.refusal(bare, [bare], port);
  return refusal && policy.refuse(refusal);
}

/**
 * An undici connector (the `connect` option of an `Agent`, `Pool` or `Client`) that makes every
 * connection through `guardedLookup`, and checks a URL's address literal itself, with the port
 * of the connection. Nothing connects to an address the policy refuses.
 * @param tls options of `tls.connect` (a private CA, a client certificate)
 */
export function guardedConnector(policy: OutboundPolicy, tls?: ConnectionOptions): buildConnector.connector {
  const { buildConnector } = undici();
  const perPort = new Map<number, buildConnector.connector>();
  return (options, callback) => {
    const port = Number(options.port) || (options.protocol === 'https:' ? 443 : 80);
    const refused = literalRefusal(policy, options.hostname, port);
    if (refused) return void queueMicrotask(() => callback(refused, null));
    let connect = perPort.get(port);
    if (!connect) {
      connect = buildConnector({ ...tls, lookup: guardedLookup(policy, port) });
      perPort.set(port, connect);
    }
    connect(options, callback);
  };
}

const agents = new WeakMap<OutboundPolicy, Agent>();

/**
 * An undici `Agent` whose every connection is guarded by `policy` (`guardedConnector`): the
 * `dispatcher` of a `fetch`. Without `tls`, one per policy.
 */
export function guardedAgent(policy: OutboundPolicy, tls?: ConnectionOptions): Agent {
  const { Agent } = undici();
  if (tls) return new Agent({ connect: guardedConnector(policy, tls) });
  let agent = agents.get(policy);
  if (!agent) {
    agent = new Agent({ connect: guardedConnector(policy) });
    agents.set(policy, agent);
  }
  return agent;
}
