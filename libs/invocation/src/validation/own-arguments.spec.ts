import { ownArguments } from './own-arguments';

describe('ownArguments', () => {
  it('copies objects at every depth without a prototype: a name not sent is absent', () => {
    const parsed = JSON.parse('{"note":{"text":"x"},"list":[{"a":1}],"__proto__":{"admin":true}}') as unknown;
    const own = ownArguments(parsed) as Record<string, Record<string, unknown> & unknown[]>;
    expect(Object.getPrototypeOf(own)).toBeNull();
    expect(own.note.toString).toBeUndefined();
    expect(Object.getPrototypeOf(own.list[0])).toBeNull();
    expect(Object.keys(own)).toEqual(['note', 'list', '__proto__']);
    expect(own['__proto__']).toEqual(Object.assign(Object.create(null), { admin: true }));
    expect(JSON.stringify(own)).toBe('{"note":{"text":"x"},"list":[{"a":1}],"__proto__":{"admin":true}}');
  });

  it('keeps other values as they are', () => {
    expect([ownArguments(null), ownArguments('x'), ownArguments(3)]).toEqual([null, 'x', 3]);
  });
});
