import { InMemoryAuthorizationServerStore } from '../state/in-memory-authorization-server.store';
import { jose } from './jose';
import { ACTIVATION_DELAY_MS, RING_REFRESH_MS, SigningKeys } from './signing-keys';

const kidOf = (token: string) =>
  (JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString()) as { kid: string }).kid;

/** Two replicas' keys on one store, started as the application does. */
async function replicas() {
  const store = new InMemoryAuthorizationServerStore();
  const [a, b] = [new SigningKeys(store, 300), new SigningKeys(store, 300)];
  // One after the other: the second finds the first's key (together, it would wait for it).
  await a.onApplicationBootstrap();
  await b.onApplicationBootstrap();
  return { a, b };
}

describe('SigningKeys', () => {
  let keys: SigningKeys[] = [];
  afterEach(() => {
    keys.forEach((ring) => ring.onApplicationShutdown());
    jest.useRealTimers();
  });

  it('makes one first key for every replica, which signs and verifies on both', async () => {
    const { a, b } = await replicas();
    keys = [a, b];
    expect(a.jwks()).toEqual(b.jwks());
    expect(a.jwks().keys).toHaveLength(1);
    const token = await a.sign({ sub: 'alice' }, { typ: 'at+jwt' });
    await expect(jose().jwtVerify(token, b.getKey)).resolves.toMatchObject({ payload: { sub: 'alice' } });
  });

  it('publishes a rotated key at once, signs with it only once every replica has read it, and keeps verifying the old one', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate'] });
    const { a, b } = await replicas();
    keys = [a, b];
    const [old] = a.jwks().keys;
    const before = await b.sign({ sub: 'alice' }, { typ: 'at+jwt' });
    const { kid } = await a.rotate();
    expect(a.jwks().keys.map((key) => key.kid)).toEqual([kid, old.kid]);
    // Not signing yet, on either replica.
    expect(kidOf(await a.sign({ sub: 'alice' }, { typ: 'at+jwt' }))).toBe(old.kid);
    // The other replica reads the ring on its next refresh: it verifies the new key before it signs anything.
    await jest.advanceTimersByTimeAsync(RING_REFRESH_MS);
    expect(b.jwks().keys.map((key) => key.kid)).toEqual([kid, old.kid]);
    await jest.advanceTimersByTimeAsync(ACTIVATION_DELAY_MS - RING_REFRESH_MS);
    const after = await b.sign({ sub: 'alice' }, { typ: 'at+jwt' });
    expect(kidOf(after)).toBe(kid);
    for (const token of [before, after]) await expect(jose().jwtVerify(token, a.getKey)).resolves.toBeDefined();
    // The old key verifies until the last token it signed has expired, then it is gone.
    await jest.advanceTimersByTimeAsync(361_000);
    expect(a.jwks().keys.map((key) => key.kid)).toEqual([kid]);
  });
});
