import { hash, timingSafeEqual } from 'node:crypto';

/** RFC 7636 S256: whether `verifier` is the one `challenge` was made from. */
export function pkceMatches(verifier: string | null, challenge: string): boolean {
  if (!verifier || !/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return false;
  const made = Buffer.from(hash('sha256', verifier, 'base64url'));
  const expected = Buffer.from(challenge);
  return made.length === expected.length && timingSafeEqual(made, expected);
}
