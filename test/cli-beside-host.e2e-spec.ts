import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { readAuditTrail } from './support/desk-host';
import { startDeskProcess, type DeskProcess } from './support/desk-process';
import { connectHttpClient } from './support/fixture-app';

jest.setTimeout(60_000);

const run = promisify(execFile);
const DIST = join(__dirname, '..', 'dist');
const DESK_CLI = join(DIST, 'src', 'cli.js');
const VERIFY = join(DIST, 'apps', 'audit-verify', 'src', 'main.js');

/**
 * README's own flow: `npm start` in one terminal, `npm run -s desk -- call …` in another, with the
 * same settings (the default audit file). The host holds its trail file while it runs; each
 * command writes the command line's own trail beside it, one command at a time, and every trail
 * verifies.
 */
describe('the CLI beside a running host on the same audit settings', () => {
  let dir: string;
  let host: DeskProcess;
  const env = () => ({ AUDIT_FILE: join(dir, 'audit.jsonl') });

  /** `npm run -s desk -- <args>`, with the host's settings. */
  const desk = (args: string[]) =>
    run(process.execPath, [DESK_CLI, ...args], { env: { PATH: process.env.PATH, ...env() } }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cli-beside-host-'));
    host = await startDeskProcess(env());
  });

  afterAll(async () => {
    await host?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("runs each command at once, recorded in the command line's own file and chain; every trail verifies", async () => {
    // The host records something of its own (an initialize).
    await (await connectHttpClient(`http://127.0.0.1:${host.port}/mcp`)).close();
    // Two commands at once, as two terminals would run them.
    const [first, second] = await Promise.all([
      desk(['call', 'get_ticket', 'T-2001', '--output', 'json']),
      desk(['call', 'search_tickets', '--status', 'open', '--limit', '2', '--output', 'json']),
    ]);
    expect([first.code, second.code]).toEqual([0, 0]);
    expect(JSON.parse(first.stdout)).toMatchObject({ id: 'T-2001' });
    const commands = (await readAuditTrail(join(dir, 'audit.cli.jsonl'))).filter(
      (record) => record.method === 'tools/call',
    );
    expect(commands.map((record) => [record.chain, record.transport, record.outcome])).toEqual([
      [`${hostname()}.cli`, 'cli', 'ok'],
      [`${hostname()}.cli`, 'cli', 'ok'],
    ]);
    expect(commands.map((record) => record.target).sort()).toEqual(['get_ticket', 'search_tickets']);
    const hosts = await readAuditTrail(join(dir, 'audit.jsonl'));
    expect(hosts.map((record) => record.method)).toContain('initialize');
    expect(hosts.filter((record) => record.chain !== hostname() || record.transport === 'cli')).toEqual([]);
    for (const file of ['audit.jsonl', 'audit.cli.jsonl']) {
      const { stdout } = await run(process.execPath, [VERIFY, join(dir, file)]);
      expect(stdout).toMatch(/^OK: \d+ record\(s\) in 1 chain\(s\)/);
    }
  });
});
