import { LineSplitter } from './line-splitter';

function split(limit: number, chunks: (string | Buffer)[]): string[] {
  const seen: string[] = [];
  const splitter = new LineSplitter(
    limit,
    (line) => seen.push(line.toString('utf8')),
    () => seen.push('<too long>'),
  );
  for (const chunk of chunks) splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return seen;
}

describe('LineSplitter', () => {
  it('joins lines across chunks and splits several lines in one chunk', () => {
    expect(split(100, ['{"a":', '1}\n{"b":2}\n{"c"', ':3}\n'])).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it('keeps a multi-byte character that a chunk boundary cuts in two', () => {
    const bytes = Buffer.from('"é"\n');
    expect(split(100, [bytes.subarray(0, 2), bytes.subarray(2)])).toEqual(['"é"']);
  });

  it('reports a line over the limit once, as soon as it passes it, and skips the rest of it', () => {
    expect(split(10, ['0123456789', 'A', 'B'.repeat(1_000), 'C\n{"ok":1}\n'])).toEqual(['<too long>', '{"ok":1}']);
    expect(split(10, ['0123456789\n'])).toEqual(['0123456789']); // exactly the limit is fine
  });
});
