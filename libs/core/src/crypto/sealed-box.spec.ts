import { randomBytes } from 'node:crypto';
import { SealBroken, SealedBox } from './sealed-box';

/** The sealed value with one of its parts (2: the GCM tag, 3: the ciphertext) changed by `change`. */
function withPart(sealed: string, index: 2 | 3, change: (bytes: Buffer) => Buffer): string {
  const parts = sealed.split('.');
  parts[index] = change(Buffer.from(parts[index], 'base64url')).toString('base64url');
  return parts.join('.');
}
const withTag = (sealed: string, change: (tag: Buffer) => Buffer) => withPart(sealed, 2, change);
const withData = (sealed: string, change: (data: Buffer) => Buffer) => withPart(sealed, 3, change);

describe('SealedBox', () => {
  const box = new SealedBox(randomBytes(32));

  it('opens what it sealed for the same owner and API, and never holds the text in the clear', () => {
    const sealed = box.seal('{"accessToken":"secret-token"}', 'alice\napi crm');
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('secret-token');
    expect(box.open(sealed, 'alice\napi crm')).toBe('{"accessToken":"secret-token"}');
  });

  it.each([
    ['for another owner', (sealed: string) => [sealed, 'bob\napi crm']],
    ['for another API', (sealed: string) => [sealed, 'alice\napi ledger']],
    // One bit of the ciphertext flipped (replacing its last characters is a no-op when they held the same byte).
    [
      'edited',
      (sealed: string) => [
        withData(sealed, (data) => Buffer.from(data.map((byte, i) => (i === 0 ? byte ^ 1 : byte)))),
        'alice\napi crm',
      ],
    ],
    ['under another key', (sealed: string) => [sealed, 'alice\napi crm', new SealedBox(randomBytes(32))]],
    ['not sealed at all', () => ['plain', 'alice\napi crm']],
    // GCM checks a truncated tag against the prefix of the right one: 4 bytes are 2^32 tries to forge.
    [
      'with its tag cut to 4 bytes',
      (sealed: string) => [withTag(sealed, (tag) => tag.subarray(0, 4)), 'alice\napi crm'],
    ],
    [
      'with its tag cut to 12 bytes',
      (sealed: string) => [withTag(sealed, (tag) => tag.subarray(0, 12)), 'alice\napi crm'],
    ],
  ] as const)('refuses to open a value %s', (_case, make) => {
    const [sealed, bound, other] = make(box.seal('{"accessToken":"t"}', 'alice\napi crm')) as [
      string,
      string,
      SealedBox?,
    ];
    expect(() => (other ?? box).open(sealed, bound)).toThrow(SealBroken);
  });
});
