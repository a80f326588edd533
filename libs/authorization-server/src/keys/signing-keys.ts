import { randomUUID } from 'node:crypto';
import type { JWK, JWTHeaderParameters, JWTPayload, JWTVerifyGetKey, CryptoKey } from 'jose';
import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { LocalTokenKeys } from '#libs/security';
import type { AuthorizationServerStore } from '../state/authorization-server.store';
import { jose } from './jose';

/** One key of the ring, as stored (the private JWK: every replica signs with it). */
interface StoredKey {
  kid: string;
  createdAt: number;
  /** After this, the key no longer verifies: every token it signed has expired. */
  retireAt?: number;
  /** From this on, the key signs (before it, it is published and verifies, so every replica knows it first). */
  activatesAt?: number;
  jwk: JWK;
}

interface LoadedKey extends StoredKey {
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

const KEYS = 'keys';
const ALG = 'ES256';
const TEN_YEARS_MS = 10 * 365 * 86_400_000;
/** A token naming an unknown key makes the ring reload from the store at most this often. */
const RELOAD_COOLDOWN_MS = 5_000;
/** Every replica reads the ring again this often, so it learns of a rotation made elsewhere. */
export const RING_REFRESH_MS = 10_000;
/** A rotated key signs only after every replica has read it (twice the refresh, to be sure). */
export const ACTIVATION_DELAY_MS = 2 * RING_REFRESH_MS;

/**
 * The authorization server's signing keys: the newest signs, the older ones still verify until
 * the last token they signed has expired, so a rotation drops no session (refresh tokens are
 * opaque, and access tokens signed before it stay valid). The ring lives in the store, so every
 * replica signs and verifies with the same keys: each reads it again every 10 s (and when it meets
 * a key it does not know), and a rotated key is published at once but signs only 20 s later, when
 * every replica verifies it — no replica ever meets a token signed by a key it cannot know yet.
 */
export class SigningKeys implements LocalTokenKeys, OnApplicationBootstrap, OnApplicationShutdown {
  private ring: LoadedKey[] = [];
  private loadedAt = 0;
  private refresh: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: AuthorizationServerStore,
    private readonly accessTokenTtlSec: number,
  ) {}

  /** Nest's hook: the ring is there before the application listens. */
  async onApplicationBootstrap(): Promise<void> {
    await this.start();
    // A store that cannot answer now and then leaves the ring as it was until the next time.
    this.refresh = setInterval(() => void this.reload().catch(() => undefined), RING_REFRESH_MS);
    this.refresh.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.refresh);
  }

  /** Loads the ring, or makes its first key when there is none yet. */
  async start(): Promise<void> {
    await this.reload();
    if (this.ring.length > 0) return;
    // One replica makes the first key; the others read it.
    if (await this.store.claim(`${KEYS}:first`, 60_000)) await this.save([await this.newKey()]);
    else
      for (let attempt = 0; attempt < 50 && this.ring.length === 0; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        await this.reload();
      }
    if (this.ring.length === 0) throw new Error('The authorization server found no signing key in its store');
  }

  /**
   * A new key, published now, signs from `activatesAt` on (every replica knows it by then); the
   * previous ones verify until their last token expires.
   */
  async rotate(): Promise<{ kid: string; activatesAt: string }> {
    await this.reload();
    const now = Date.now();
    const activatesAt = now + ACTIVATION_DELAY_MS;
    const retireAt = activatesAt + (this.accessTokenTtlSec + 60) * 1000;
    const kept = this.ring
      .filter((key) => key.retireAt === undefined || key.retireAt > now)
      .map(({ kid, createdAt, jwk, activatesAt: activates, retireAt: retiring }) => ({
        kid,
        createdAt,
        jwk,
        ...(activates !== undefined && { activatesAt: activates }),
        retireAt: retiring ?? retireAt,
      }));
    const fresh = { ...(await this.newKey()), activatesAt };
    await this.save([fresh, ...kept]);
    return { kid: fresh.kid, activatesAt: new Date(activatesAt).toISOString() };
  }

  /** Signs `payload` with the current key. */
  sign(payload: JWTPayload, header: Omit<JWTHeaderParameters, 'alg' | 'kid'>): Promise<string> {
    const now = Date.now();
    // The newest key that is active (a rotated one waits until every replica has read it).
    const current = this.ring.find((key) => !key.activatesAt || key.activatesAt <= now) ?? this.ring[0];
    return new (jose().SignJWT)(payload)
      .setProtectedHeader({ ...header, alg: ALG, kid: current.kid })
      .sign(current.privateKey);
  }

  /** The public keys, as the JWKS endpoint publishes them. */
  jwks(): { keys: JWK[] } {
    const now = Date.now();
    return { keys: this.ring.filter((key) => !key.retireAt || key.retireAt > now).map((key) => key.publicJwk) };
  }

  readonly getKey: JWTVerifyGetKey = async (header) => {
    let key = this.verifying(header.kid);
    if (!key && Date.now() - this.loadedAt > RELOAD_COOLDOWN_MS) {
      await this.reload();
      key = this.verifying(header.kid);
    }
    if (!key) throw new (jose().errors.JWKSNoMatchingKey)();
    return key.publicKey;
  };

  private verifying(kid: string | undefined): LoadedKey | undefined {
    const key = this.ring.find((candidate) => candidate.kid === kid);
    return key && (!key.retireAt || key.retireAt > Date.now()) ? key : undefined;
  }

  private async newKey(): Promise<StoredKey> {
    const { privateKey } = await jose().generateKeyPair(ALG, { extractable: true });
    const kid = randomUUID();
    return { kid, createdAt: Date.now(), jwk: { ...(await jose().exportJWK(privateKey)), kid, alg: ALG, use: 'sig' } };
  }

  private async save(keys: StoredKey[]): Promise<void> {
    await this.store.put(KEYS, JSON.stringify(keys), TEN_YEARS_MS);
    this.ring = await Promise.all(keys.map(load));
    this.loadedAt = Date.now();
  }

  private async reload(): Promise<void> {
    const stored = await this.store.get(KEYS);
    this.loadedAt = Date.now();
    if (stored) this.ring = await Promise.all((JSON.parse(stored) as StoredKey[]).map(load));
  }
}

async function load(key: StoredKey): Promise<LoadedKey> {
  const { d: _private, ...publicJwk } = key.jwk;
  return {
    ...key,
    privateKey: (await jose().importJWK(key.jwk, ALG)) as CryptoKey,
    publicKey: (await jose().importJWK(publicJwk, ALG)) as CryptoKey,
    publicJwk: { ...publicJwk, kid: key.kid, alg: ALG, use: 'sig' },
  };
}
