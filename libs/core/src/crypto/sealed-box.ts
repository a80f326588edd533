import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** The sealed value could not be opened: another key, edited, or sealed for another owner. */
export class SealBroken extends Error {
  constructor() {
    super('the sealed value does not open with this key for this owner');
  }
}

/**
 * AES-256-GCM with what the value belongs to as associated data (a person and an API's connected
 * account, a sign-in and its IdP token): a sealed value opens only under the key it was sealed
 * with, for what it was sealed for. A value copied to another entry (in the database, say) does
 * not open there. Format: `v1.<iv>.<tag>.<ciphertext>`, each base64url.
 */
export class SealedBox {
  constructor(private readonly key: Buffer) {}

  seal(plain: string, bound: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(bound, 'utf8'));
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), data]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /** @throws SealBroken */
  open(sealed: string, bound: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || data === undefined) throw new SealBroken();
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(bound, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SealBroken();
    }
  }
}
