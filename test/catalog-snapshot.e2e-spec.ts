import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');
const CLI = join(ROOT, 'dist', 'src', 'cli.js');
const COMMITTED = join(ROOT, 'catalog.snapshot.json');

jest.setTimeout(60_000);

/** The desk's command line, as a pipeline runs it (its defaults: no key, the local operator). */
function desk(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...argv],
      { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn', AUTH_MODE: 'none' } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * `desk catalog snapshot` / `catalog diff` on the support desk: its committed snapshot is the
 * catalog as built (a pipeline's check passes), and a contract that the catalog breaks fails it,
 * each breaking change listed.
 */
describe('desk catalog snapshot and diff', () => {
  const dir = mkdtempSync(join(tmpdir(), 'catalog-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the catalog the desk committed: its snapshot is current', async () => {
    const file = join(dir, 'now.json');
    const written = await desk('catalog', 'snapshot', file);
    expect(written).toMatchObject({ code: 0, stderr: expect.stringMatching(/^Wrote .*now\.json: \d+ tool\(s\)/) });
    expect(readFileSync(file, 'utf8')).toBe(readFileSync(COMMITTED, 'utf8'));
    const checked = await desk('catalog', 'diff');
    expect(checked).toMatchObject({ code: 0, stdout: 'The catalog is as catalog.snapshot.json records it.\n' });
  });

  it('fails on a breaking change against the snapshot, listing each, and lists what breaks no one', async () => {
    // The contract as it was: a tool since removed, an argument that was optional, a tool anyone could read.
    const before = JSON.parse(readFileSync(COMMITTED, 'utf8'));
    before.tools.legacy_export = { inputSchema: { type: 'object', properties: {} }, access: { scopes: [], roles: [] } };
    const createTicket = before.tools.create_ticket.inputSchema;
    createTicket.required = createTicket.required.filter((name: string) => name !== 'subject');
    before.tools.get_ticket.access = { scopes: [], roles: [] };
    before.tools.get_ticket.description = 'Returns one ticket.';
    delete before.tools.search_customers;
    const file = join(dir, 'before.json');
    writeFileSync(file, JSON.stringify(before));

    const diff = await desk('catalog', 'diff', file);
    expect(diff.code).toBe(1);
    expect(diff.stdout).toBe(
      [
        'Breaking changes (3):',
        '  - tool "legacy_export" was removed',
        '  - tool "create_ticket": argument "subject" is now required',
        '  - tool "get_ticket": now requires the scope "tickets:read"',
        'Other changes (2):',
        '  - tool "get_ticket": description changed',
        '  - tool "search_customers" was added',
        '',
      ].join('\n'),
    );
    expect(diff.stderr).toContain(`The catalog breaks callers written against ${file}.`);
    const json = await desk('catalog', 'diff', file, '--output', 'json');
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout).breaking).toHaveLength(3);
  });

  it('says what to do without a snapshot, or with a file that is not one', async () => {
    expect(await desk('catalog', 'diff', join(dir, 'missing.json'))).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('No catalog snapshot at'),
    });
    writeFileSync(join(dir, 'other.json'), '{"tools":{}}');
    expect(await desk('catalog', 'diff', join(dir, 'other.json'))).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('is no catalog snapshot'),
    });
    expect(await desk('catalog', 'publish')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('catalog snapshot [file]'),
    });
  });
});
