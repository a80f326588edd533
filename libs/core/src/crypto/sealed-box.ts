import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const IV_BYTES = 12;
/** GCM's full tag: a shorter one (Node takes 4 to 16 bytes unless told) could be forged in far fewer tries. */
const TAG_BYTES = 16;

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
 * not open there. Format: `v1.<iv>.<tag>.<ciphertext>`, each base64url; the tag is always GCM's
 * full 16 bytes (a value with a truncated tag does not open).
 */
export class SealedBox {
  constructor(private readonly key: Buffer) {}

  seal(plain: string, bound: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(bound, 'utf8'));
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), data]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /** @throws SealBroken */
  open(sealed: string, bound: string): string {
    const [version, ivText, tagText, data] = sealed.split('.');
    if (version !== 'v1' || !ivText || !tagText || data === undefined) throw new SealBroken();
    const iv = Buffer.from(ivText, 'base64url');
    const tag = Buffer.from(tagText, 'base64url');
    if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SealBroken();
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, iv, { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(bound, 'utf8'));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SealBroken();
    }
  }
}
