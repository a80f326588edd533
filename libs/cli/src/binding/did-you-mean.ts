/** Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`. */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
    }
  }
  return rows[a.length][b.length];
}

/**
 * The candidate the user most likely meant by `typed` (ignoring case): the nearest within a typo
 * or two (one for short words), else the only one `typed` begins. `undefined` when nothing is close.
 */
export function didYouMean(typed: string, candidates: readonly string[]): string | undefined {
  const word = typed.toLowerCase();
  const allowed = word.replace(/^-+/, '').length <= 4 ? 1 : 2;
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const edits = distance(word, candidate.toLowerCase());
    if (edits <= allowed && (!best || edits < best.distance)) best = { candidate, distance: edits };
  }
  if (best) return best.candidate;
  const extended = candidates.filter((candidate) => candidate.toLowerCase().startsWith(word));
  return word.replace(/^-+/, '').length >= 3 && extended.length === 1 ? extended[0] : undefined;
}
