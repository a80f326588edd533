import { randomBytes } from 'node:crypto';
import { SealBroken, SealedBox } from './sealed-box';

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
    ['edited', (sealed: string) => [`${sealed.slice(0, -2)}AA`, 'alice\napi crm']],
    ['under another key', (sealed: string) => [sealed, 'alice\napi crm', new SealedBox(randomBytes(32))]],
    ['not sealed at all', () => ['plain', 'alice\napi crm']],
  ] as const)('refuses to open a value %s', (_case, make) => {
    const [sealed, bound, other] = make(box.seal('{"accessToken":"t"}', 'alice\napi crm')) as [
      string,
      string,
      SealedBox?,
    ];
    expect(() => (other ?? box).open(sealed, bound)).toThrow(SealBroken);
  });
});
