import { hash, timingSafeEqual } from 'node:crypto';

/**
 * The stored form of an API key: `sha256:<hex>`. Keys themselves are never kept in
 * configuration.
 *
 * @example
 * ```bash
 * node -e "console.log(require('crypto').createHash('sha256').update(process.argv[1]).digest('hex'))" 'my-secret-key'
 * ```
 */
export function hashApiKey(key: string): string {
  // The one-shot hash is markedly cheaper than a Hash object on this per-request path.
  return `sha256:${hash('sha256', key, 'hex')}`;
}

/** The raw SHA-256 digest of a key, for constant-time comparison. */
export function keyDigest(key: string): Buffer {
  return hash('sha256', key, 'buffer');
}

/** The raw digest held in a stored `sha256:<hex>` hash. */
export function storedDigest(stored: string): Buffer {
  return Buffer.from(stored.slice('sha256:'.length), 'hex');
}

/** Compares two 32-byte digests in constant time. */
export function sameDigest(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
