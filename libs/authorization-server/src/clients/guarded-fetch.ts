import { lookup, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { AddressRanges } from '#libs/security';

/** Addresses a client's metadata document URL may not lead to: loopback, private, link-local, CGNAT, unique-local, multicast, reserved. */
const NON_PUBLIC = new AddressRanges();
for (const range of [
  '0.0.0.0/8',
  '10.0.0.0/8',
  '100.64.0.0/10',
  '127.0.0.0/8',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '224.0.0.0/3',
  '::/128',
  '::1/128',
  'fc00::/7',
  'fe80::/10',
  'ff00::/8',
])
  NON_PUBLIC.add(range);

const MAX_BYTES = 64 * 1024;
const TIMEOUT_MS = 5_000;

/** Why a guarded fetch was refused or failed, in words a client's developer can act on. */
export class GuardedFetchError extends Error {}

export interface GuardedFetchOptions {
  /** Hosts that may resolve to non-public addresses (and be fetched over http). */
  allowHosts: ReadonlySet<string>;
  /** Extra trusted certificates (PEM). */
  ca: string | undefined;
}

/**
 * GETs a JSON document from a URL a stranger chose (a Client ID Metadata Document), guarded
 * against server-side request forgery: HTTPS only; the host's addresses resolved first and
 * refused if any is not public (unless the host is allowed), then the connection pinned to the
 * address checked (no second resolution to rebind); no redirects; at most 64 KiB within 5 s.
 */
export async function guardedFetchJson(
  url: URL,
  options: GuardedFetchOptions,
): Promise<{ body: unknown; maxAgeSec?: number }> {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const allowed = options.allowHosts.has(host);
  if (url.protocol !== 'https:' && !(allowed && url.protocol === 'http:'))
    throw new GuardedFetchError('the document URL must use https');
  if (url.username || url.password) throw new GuardedFetchError('the document URL must not carry credentials');
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolve(host);
  if (!allowed) {
    const inner = addresses.find(({ address }) => NON_PUBLIC.has(address));
    if (inner) throw new GuardedFetchError(`the document's host resolves to a non-public address (${inner.address})`);
  }
  const [pinned] = addresses;
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolvePromise, reject) => {
    const req = send(
      url,
      {
        method: 'GET',
        headers: { accept: 'application/json' },
        timeout: TIMEOUT_MS,
        ...(options.ca && { ca: options.ca }),
        // The connection goes to the address checked above, never to a second resolution's.
        lookup: ((_hostname: string, lookupOptions: { all?: boolean }, callback: (...args: unknown[]) => void) =>
          lookupOptions.all
            ? callback(null, [pinned])
            : callback(null, pinned.address, pinned.family)) as unknown as LookupFunction,
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new GuardedFetchError(`the document URL answered ${res.statusCode} (redirects are not followed)`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_BYTES) {
            req.destroy();
            reject(new GuardedFetchError('the document is larger than 64 KiB'));
          } else chunks.push(chunk);
        });
        res.on('end', () => {
          try {
            const maxAge = /max-age=(\d+)/.exec(String(res.headers['cache-control'] ?? ''));
            resolvePromise({
              body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
              ...(maxAge && { maxAgeSec: Number(maxAge[1]) }),
            });
          } catch {
            reject(new GuardedFetchError('the document is not JSON'));
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new GuardedFetchError('the document URL did not answer within 5 s')));
    req.on('error', (error) =>
      reject(
        error instanceof GuardedFetchError
          ? error
          : new GuardedFetchError(`the document could not be fetched: ${error.message}`),
      ),
    );
    req.end();
  });
}

function resolve(host: string): Promise<LookupAddress[]> {
  return new Promise((resolvePromise, reject) =>
    lookup(host, { all: true }, (error, addresses) =>
      error
        ? reject(new GuardedFetchError(`the document's host does not resolve (${error.code})`))
        : resolvePromise(addresses),
    ),
  );
}
