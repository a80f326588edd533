import { createHash, timingSafeEqual } from 'node:crypto';

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
  return `sha256:${createHash('sha256').update(key).digest('hex')}`;
}

/** Compares two hashes in constant time. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
