import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');

/** The sections of the MCP security best practices (2025-11-25 and 2026-07-28) a row may cite as `SBP: <name>`. */
const BEST_PRACTICES = new Set([
  'require authentication',
  'browsers are hostile',
  'bounded resources',
  'least privilege',
  'input validation and secret leakage',
  'confused deputy',
  'token passthrough',
  'SSRF',
  'session hijacking',
  'state handle hijacking',
  'local server compromise',
  'authorization URL validation',
  'stdio in proxies',
  'mix-up',
  'localhost redirect impersonation',
  'CIMD trust policies',
  'scope minimization',
]);
/** OWASP AISVS 1.0, chapter C10 (MCP security), as of 2026-07. */
const AISVS = new Set([
  ...['10.1.1', '10.1.2', '10.1.3'],
  ...['10.2.1', '10.2.2', '10.2.3', '10.2.4', '10.2.5', '10.2.6', '10.2.7'],
  ...['10.3.1', '10.3.2', '10.3.3', '10.3.4', '10.3.5'],
  ...['10.4.1', '10.4.2', '10.4.3', '10.4.4', '10.4.5', '10.4.6', '10.4.7', '10.4.8', '10.4.9'],
]);
/** OWASP MCP Top 10 (2025). */
const MCP_TOP_10 = new Set(['MCP01', 'MCP02', 'MCP03', 'MCP04', 'MCP05', 'MCP06', 'MCP07', 'MCP08', 'MCP09', 'MCP10']);

interface ThreatRow {
  section: string;
  id: string;
  threat: string;
  sources: string;
  control: string;
  test: string;
}

/** The cells of a markdown table row; `\|` inside a cell is not a separator. */
function cellsOf(line: string): string[] {
  return line
    .split(/(?<!\\)\|/)
    .slice(1, -1)
    .map((cell) => cell.trim());
}

/** docs/security.md's threat model: its summary line and every row of every surface's table. */
function threatModel(): { summary: string | undefined; sections: Map<string, ThreatRow[]> } {
  const text = readFileSync(join(ROOT, 'docs', 'security.md'), 'utf8');
  const start = text.indexOf('\n## Threat model\n');
  expect(start).toBeGreaterThan(0);
  const end = text.indexOf('\n## ', start + 1);
  const lines = text.slice(start, end < 0 ? undefined : end).split('\n');
  const sections = new Map<string, ThreatRow[]>();
  let section: string | undefined;
  for (const line of lines) {
    if (line.startsWith('### ')) {
      section = line.slice(4).trim();
      sections.set(section, []);
    } else if (section && line.startsWith('|') && !/^\|\s*(id|-+)\s*\|/.test(line)) {
      const [id, threat, sources, control, test, ...extra] = cellsOf(line);
      expect({ line, extra }).toEqual({ line, extra: [] });
      sections.get(section)!.push({ section, id, threat, sources, control, test });
    }
  }
  const summary = lines.find((line) => /threats?: \d+ covered/.test(line));
  return { summary, sections };
}

/** What a row's `test` cell names: `open` with its reason, or each test file with the titles in it. */
function testsOf(cell: string): { open: string } | { files: Map<string, string[]> } {
  const open = /^open\s+—\s+(.+)$/.exec(cell);
  if (open) return { open: open[1] };
  const files = new Map<string, string[]>();
  let file: string | undefined;
  for (const [, token] of cell.matchAll(/`([^`]+)`/g)) {
    if (/^(test|src|libs|apps)\/\S+\.(ts|mjs)$/.test(token)) {
      file = token;
      files.set(file, files.get(file) ?? []);
    } else if (file) files.get(file)!.push(token);
    else files.set(`(a title before any file: ${token})`, []);
  }
  return { files };
}

/**
 * docs/security.md's threat model is a promise a security review reads: each threat of the MCP
 * security best practices, the OWASP MCP Top 10 and OWASP AISVS chapter 10 that applies to a
 * surface, its control, and the test that proves the control (a test that fails without it). This
 * spec keeps the document honest: every row cites real sources, names test files that exist and
 * test titles that are in them, or says `open — <why>`; its summary line counts what the tables hold.
 */
describe('the threat model in docs/security.md', () => {
  const { summary, sections } = threatModel();
  const rows = [...sections.values()].flat();

  it('has a table per surface, none empty', () => {
    expect(sections.size).toBeGreaterThan(0);
    for (const [section, list] of sections) expect({ section, rows: list.length > 0 }).toEqual({ section, rows: true });
  });

  it('gives every threat a unique id', () => {
    const seen = new Map<string, number>();
    for (const { id } of rows) seen.set(id, (seen.get(id) ?? 0) + 1);
    expect([...seen].filter(([, count]) => count > 1)).toEqual([]);
    expect(rows.map(({ id }) => id).filter((id) => !/^[A-Z]{2,5}-\d+$/.test(id))).toEqual([]);
  });

  it('cites, for every threat, sources that exist: SBP sections, OWASP MCP Top 10 items, AISVS C10 requirements', () => {
    const wrong: string[] = [];
    for (const { id, sources } of rows) {
      const cited = sources
        .split(';')
        .map((source) => source.trim())
        .filter(Boolean);
      if (cited.length === 0) wrong.push(`${id}: no source`);
      for (const source of cited) {
        const known =
          (source.startsWith('SBP: ') && BEST_PRACTICES.has(source.slice(5))) ||
          MCP_TOP_10.has(source) ||
          (source.startsWith('AISVS ') && AISVS.has(source.slice(6)));
        if (!known) wrong.push(`${id}: "${source}"`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('names, for every covered threat, test files that exist and test titles that are in them', () => {
    const wrong: string[] = [];
    for (const { id, threat, control, test } of rows) {
      if (!threat || !control) wrong.push(`${id}: threat and control are both needed`);
      const tests = testsOf(test);
      if ('open' in tests) {
        if (tests.open.length < 12) wrong.push(`${id}: an open threat says why`);
        continue;
      }
      if (tests.files.size === 0) wrong.push(`${id}: no test named (or "open — <why>")`);
      for (const [file, titles] of tests.files) {
        const path = join(ROOT, file);
        if (!existsSync(path)) {
          wrong.push(`${id}: ${file} does not exist`);
          continue;
        }
        if (titles.length === 0) wrong.push(`${id}: ${file} without a test title`);
        const source = readFileSync(path, 'utf8');
        for (const title of titles) if (!source.includes(title)) wrong.push(`${id}: "${title}" is not in ${file}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('sums up what its tables hold', () => {
    const open = rows.filter((row) => 'open' in testsOf(row.test)).length;
    expect(summary).toContain(`**${rows.length} threats: ${rows.length - open} covered by a test, ${open} open**`);
  });
});
