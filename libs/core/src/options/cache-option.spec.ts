import { readCacheOption } from './cache-option';

describe('readCacheOption', () => {
  const problems = (value: unknown) => {
    const found: string[] = [];
    const hints = readCacheOption(value, (problem, fix) => found.push(`${problem} | ${fix}`));
    return { hints, found };
  };

  it('defaults the scope to private', () => {
    expect(problems({ ttlMs: 0 })).toEqual({ hints: { ttlMs: 0, scope: 'private' }, found: [] });
  });

  it.each([
    [{ ttlMs: -1 }, 'ttlMs must be an integer ≥ 0 (milliseconds), got -1'],
    [{ ttlMs: 1.5 }, 'ttlMs must be an integer ≥ 0 (milliseconds), got 1.5'],
    [{ scope: 'public' }, 'ttlMs must be an integer ≥ 0 (milliseconds), got undefined'],
    [{ ttlMs: 1, scope: 'shared' }, `scope must be 'public' or 'private', got "shared"`],
    [{ ttlMs: 1, ttl: 2 }, '"ttl" is not a cache hint'],
    [60_000, 'must be an object { ttlMs, scope }, got 60000'],
  ])('reports %j with how to fix it', (value, problem) => {
    const { hints, found } = problems(value);
    expect(hints).toBeUndefined();
    expect(found).toHaveLength(1);
    expect(found[0].startsWith(`${problem} | `)).toBe(true);
  });
});
