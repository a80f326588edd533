import { Logger } from '@nestjs/common';
import { RequestStateSealer } from './request-state.sealer';

const SECRET = 'a-request-state-secret-of-32-bytes!';
const OLD_SECRET = 'the-secret-used-before-the-rotation';

const sealerOf = (secrets?: string[]) => new RequestStateSealer({ requestState: { secrets, ttlMs: 600_000 } });

/** The state with one character replaced by another of the alphabet. */
function flip(sealed: string, at: number): string {
  const replacement = sealed[at] === 'A' ? 'B' : 'A';
  return sealed.slice(0, at) + replacement + sealed.slice(at + 1);
}

describe('RequestStateSealer', () => {
  const payload = { p: 'alice', m: 'tools/call', a: { user_name: ['digest', { action: 'accept' }] } };

  it('opens what it sealed, and the sealed text shows nothing of it', () => {
    const sealer = sealerOf([SECRET]);
    const sealed = sealer.seal(payload);
    expect(sealed).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(sealer.open(sealed)).toEqual(payload);
    expect(Buffer.from(sealed, 'base64url').toString('latin1')).not.toMatch(/alice|tools|accept/);
    // A fresh nonce each time: the same payload never seals to the same text.
    expect(sealer.seal(payload)).not.toBe(sealed);
  });

  it('opens nothing that was altered: a changed character, text appended, a cut', () => {
    const sealer = sealerOf([SECRET]);
    const sealed = sealer.seal(payload);
    expect(sealer.open(flip(sealed, 20))).toBeUndefined();
    expect(sealer.open(flip(sealed, sealed.length - 1))).toBeUndefined();
    expect(sealer.open(`${sealed}-TAMPERED`)).toBeUndefined();
    expect(sealer.open(`${sealed}A`)).toBeUndefined();
    expect(sealer.open(`${sealed} `)).toBeUndefined();
    expect(sealer.open(sealed.slice(0, -4))).toBeUndefined();
    expect(sealer.open('')).toBeUndefined();
    expect(sealer.open('not a state at all!')).toBeUndefined();
  });

  it('opens states of every replica with the same secret, and none of a host with another', () => {
    const sealed = sealerOf([SECRET]).seal(payload);
    expect(sealerOf([SECRET]).open(sealed)).toEqual(payload);
    expect(sealerOf([OLD_SECRET]).open(sealed)).toBeUndefined();
  });

  it('rotates: the first secret seals, every one opens', () => {
    const before = sealerOf([OLD_SECRET]).seal(payload);
    const rotated = sealerOf([SECRET, OLD_SECRET]);
    expect(rotated.open(before)).toEqual(payload);
    expect(sealerOf([SECRET]).open(rotated.seal(payload))).toEqual(payload);
  });

  it('without a secret, seals with a key of its own that no other process has', () => {
    const one = sealerOf();
    const other = sealerOf();
    const sealed = one.seal(payload);
    expect(one.open(sealed)).toEqual(payload);
    expect(other.open(sealed)).toBeUndefined();
  });

  it('says at start-up when retries must come back to this process, and only then', () => {
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    try {
      sealerOf([SECRET]).onModuleInit();
      expect(log).not.toHaveBeenCalled();
      sealerOf().onModuleInit();
      expect(log).toHaveBeenCalledTimes(1);
      expect(log.mock.calls[0][0]).toBe(
        'No requestState secret configured: a 2026-07-28 client answering an input request must come back to ' +
          'this process. Give every replica the same McpModule option requestState.secret to serve them from any.',
      );
    } finally {
      log.mockRestore();
    }
  });
});
