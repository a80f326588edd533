import { hkdfSync } from 'node:crypto';
import { SealBroken, SealedBox } from '#libs/core';
import type { McpCompanyIdp } from '../options/authorization-server.options';
import type { IdpSession } from './company-idp-login';
import { personKey, type Person } from './people';

/**
 * The IdP's tokens of a sign-in, sealed (AES-256-GCM) for the person they belong to, so that the
 * store never holds the IdP's refresh token in the clear. The key is derived (HKDF-SHA256) from
 * the host's client secret at the IdP: whoever can open the seal could use the token anyway,
 * and a new secret at the IdP makes the old seals unreadable, which ends those sign-ins at their
 * next refresh (the people sign in again).
 */
export class IdpSessionSeal {
  private readonly box: SealedBox;

  constructor(idp: Required<McpCompanyIdp>) {
    const key = hkdfSync('sha256', idp.clientSecret, idp.issuer, 'nest-mcp-host facade: idp session', 32);
    this.box = new SealedBox(Buffer.from(key));
  }

  seal(session: Omit<IdpSession, 'claims'>, person: Person): string {
    const kept = { accessToken: session.accessToken, refreshToken: session.refreshToken };
    return this.box.seal(JSON.stringify(kept), personKey(person));
  }

  /** The IdP's tokens, or `undefined` when the seal does not open (another secret, another person, edited). */
  open(sealed: string, person: Person): Omit<IdpSession, 'claims'> | undefined {
    try {
      return JSON.parse(this.box.open(sealed, personKey(person))) as Omit<IdpSession, 'claims'>;
    } catch (error) {
      if (error instanceof SealBroken) return undefined;
      throw error;
    }
  }
}
