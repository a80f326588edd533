import type { JWTVerifyGetKey } from 'jose';
import { outboundFetcher } from '../outbound/outbound-fetch';
import { OutboundPolicies } from '../outbound/outbound-policies';

/** The longest a key set's download may take, its body included (jose's own default). */
const JWKS_TIMEOUT_MS = 5_000;
/** The most bytes of a key set (one holds a few keys: a few KB). */
const JWKS_MAX_BYTES = 256 * 1024;

/**
 * A remote JSON Web Key Set (jose's, cached, fetched again for an unknown `kid` at most every
 * 30 s), downloaded through the outbound guard: the URL is the operator's (`configured`), no
 * redirect is followed, the whole answer comes within 5 s and is at most 256 KiB.
 *
 * @internal for the sibling libraries
 * @example
 * ```ts
 * const keys = remoteKeySet(jose(), 'https://idp.corp.example/jwks', "the IdP's keys");
 * await jose().jwtVerify(token, keys, { issuer });
 * ```
 */
export function remoteKeySet(jose: typeof import('jose'), url: string, purpose: string): JWTVerifyGetKey {
  return jose.createRemoteJWKSet(new URL(url), {
    cooldownDuration: 30_000,
    timeoutDuration: JWKS_TIMEOUT_MS,
    [jose.customFetch]: outboundFetcher({
      purpose,
      policy: OutboundPolicies.configured([url], purpose),
      timeoutMs: JWKS_TIMEOUT_MS,
      maxBytes: JWKS_MAX_BYTES,
    }),
  });
}
