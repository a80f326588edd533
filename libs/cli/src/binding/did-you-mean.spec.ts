import { didYouMean } from './did-you-mean';

const OPTIONS = ['--status', '--priority', '--customer-id', '--limit', '--no-dry-run', '--dry-run'];

describe('didYouMean', () => {
  it.each([
    ['--stauts', '--status'],
    ['--STATIS', '--status'],
    ['--prority', '--priority'],
    ['--customerid', '--customer-id'],
    ['--dryrun', '--dry-run'],
    ['--cust', '--customer-id'],
  ])('suggests %s → %s', (typed, suggestion) => expect(didYouMean(typed, OPTIONS)).toBe(suggestion));

  it('suggests nothing when nothing is close, or a prefix fits several', () => {
    expect(didYouMean('--verbose', OPTIONS)).toBeUndefined();
    expect(didYouMean('--li', ['--limit', '--list'])).toBeUndefined();
    expect(didYouMean('x', [])).toBeUndefined();
  });

  it('allows one edit for a short word, two for a longer one', () => {
    expect(didYouMean('hgih', ['high'])).toBe('high');
    expect(didYouMean('lw', ['low'])).toBe('low');
    expect(didYouMean('xyz', ['low'])).toBeUndefined();
    expect(didYouMean('urgnet', ['urgent'])).toBe('urgent');
  });
});
