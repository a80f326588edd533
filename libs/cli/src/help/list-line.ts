/** An entry of `list`: a tool, prompt or resource and what it does. */
export interface CliListEntry {
  readonly name: string;
  readonly description?: string;
}

/** Words a sentence does not end after, though a period follows them. */
const ABBREVIATIONS = /(?:^|[\s(])(?:e\.g|i\.e|etc|vs|cf|approx|incl|no)\.$/i;

/**
 * The first sentence of `text`: up to the first `.`, `!` or `?` followed by a space or the end
 * (not after `e.g.`, `i.e.`, `etc.`), on one line.
 */
export function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  for (const end of flat.matchAll(/[.!?](?=\s|$)/g)) {
    const sentence = flat.slice(0, end.index + 1);
    if (!ABBREVIATIONS.test(sentence)) return sentence;
  }
  return flat;
}

/**
 * One line of `list`: two spaces, the name padded to `nameWidth`, then the first sentence of the
 * description, cut with `…` to fit `width`.
 *
 * @example
 * ```ts
 * formatListLine({ name: 'close_ticket', description: 'Closes a ticket. Idempotent.' }, 16);
 * // '  close_ticket    Closes a ticket.'
 * ```
 */
export function formatListLine(entry: CliListEntry, nameWidth: number, width = 80): string {
  const name = `  ${entry.name.padEnd(nameWidth)}`;
  const sentence = entry.description ? firstSentence(entry.description) : '';
  if (!sentence) return name.trimEnd();
  const room = width - name.length - 2;
  let shown = sentence;
  if (sentence.length > room && room > 1) {
    // Cut at a space when one is not too far back, so that no word is cut in two.
    const cut = sentence.slice(0, room - 1);
    const space = cut.lastIndexOf(' ');
    shown = `${(space > room / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
  }
  return `${name}  ${shown}`;
}

/**
 * The lines of `list` for some entries, the descriptions aligned after the longest name (up to
 * 32 columns; a longer name pushes its own description along).
 */
export function formatList(entries: readonly CliListEntry[], width = 80): string[] {
  const nameWidth = Math.min(Math.max(0, ...entries.map((entry) => entry.name.length)), 32);
  return entries.map((entry) => formatListLine(entry, nameWidth, width));
}
