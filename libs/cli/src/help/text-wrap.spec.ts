import { twoColumns, wrap } from './text-wrap';

describe('wrap', () => {
  it('breaks at spaces within the width, keeps line breaks, leaves a long word whole', () => {
    expect(wrap('one two three four', 9)).toEqual(['one two', 'three', 'four']);
    expect(wrap('first line\nsecond', 40)).toEqual(['first line', 'second']);
    expect(wrap('a https://example.com/a/very/long/path b', 10)).toEqual([
      'a',
      'https://example.com/a/very/long/path',
      'b',
    ]);
    expect(wrap('  spaced   out  ', 40)).toEqual(['spaced out']);
  });
});

describe('twoColumns', () => {
  it('pads the left column and indents the wrapped right one under itself', () => {
    expect(twoColumns('  --limit', 'The most tickets to return, twenty by default.', 12, 40)).toEqual([
      '  --limit   The most tickets to return,',
      '            twenty by default.',
    ]);
  });

  it('gives a left entry too wide for its column a line of its own', () => {
    expect(twoColumns('  --include-closed', 'Closed ones too.', 12, 40)).toEqual([
      '  --include-closed',
      '            Closed ones too.',
    ]);
    expect(twoColumns('  --ratio', '', 12, 40)).toEqual(['  --ratio']);
  });
});
