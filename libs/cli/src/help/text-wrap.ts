/**
 * `text` broken into lines of at most `width` characters at spaces; a word longer than the
 * width stands on a line of its own. Line breaks in `text` are kept, runs of spaces collapse.
 */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split(/\r?\n/)) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      if (line && line.length + 1 + word.length > width) {
        lines.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    lines.push(line);
  }
  return lines;
}

/**
 * Two columns: `left` padded to `leftWidth`, `right` wrapped in the rest of `width` and indented
 * under itself. A `left` too long for its column gets a line of its own.
 */
export function twoColumns(left: string, right: string, leftWidth: number, width: number): string[] {
  const pad = ' '.repeat(leftWidth);
  const body = right ? wrap(right, Math.max(width - leftWidth, 20)) : [];
  if (left.length > leftWidth - 2 || body.length === 0) return [left, ...body.map((line) => pad + line)];
  return [left.padEnd(leftWidth) + body[0], ...body.slice(1).map((line) => pad + line)];
}
