import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { auditRecords, DESK_KEYS, DESK_TOOLS } from './support/desk-host';

// Each test spawns the CLI several times (under a second each on an idle machine, several on a loaded one).
jest.setTimeout(60_000);

/** The support desk's CLI, as `npm run -s desk` runs it (built by `npm test` before the suites). */
const DESK_CLI = join(__dirname, '..', 'dist', 'src', 'cli.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface RunOptions {
  env?: Record<string, string>;
  stdin?: string;
  /** Called with the child as soon as stderr shows `when`. */
  onStderr?: { when: RegExp; then: (child: ReturnType<typeof spawn>) => void };
}

/**
 * A trail file in a directory of its own: the command line's runs of one trail (its directory and
 * chain) write one at a time, and those of other specs must not wait for these.
 */
const newAuditFile = () => join(mkdtempSync(join(tmpdir(), 'cli-audit-')), 'audit.jsonl');

/** Runs the desk's CLI with `args` and its own audit trail; resolves when it exits. */
function desk(args: string[], options: RunOptions = {}, auditFile = newAuditFile()) {
  return new Promise<Run>((resolve, reject) => {
    const child = spawn(process.execPath, [DESK_CLI, ...args], {
      env: {
        PATH: process.env.PATH,
        AUDIT_FILE: auditFile,
        // Keys are checked (the demo keys of config/api-keys.example.json); without one, the configured operator calls.
        AUTH_MODE: 'apiKey',
        SUPPORT_REPORT_STEP_MS: '20',
        ...options.env,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let fired = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (options.onStderr && !fired && options.onStderr.when.test(stderr)) {
        fired = true;
        options.onStderr.then(child);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}

/** Where the CLI's runs write beside a trail file (the hosts' own stays theirs): `audit.cli.jsonl`. */
const commandLineTrail = (auditFile: string) => auditFile.replace(/\.jsonl$/, '.cli.jsonl');

const json = <T>(run: Run): T => JSON.parse(run.stdout) as T;
interface Ticket {
  id: string;
  status: string;
  priority: string;
  assignee: string | null;
}
const tickets = (run: Run) => json<{ tickets: Ticket[]; count: number }>(run).tickets;

describe('the support desk CLI (npm run -s desk)', () => {
  describe('commands', () => {
    it('list: every tool, prompt and resource with a one-line description', async () => {
      const run = await desk(['list']);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      for (const tool of DESK_TOOLS) expect(run.stdout).toMatch(new RegExp(`^\\s*${tool}\\s+\\S`, 'm'));
      expect(run.stdout).toContain('triage_ticket');
      expect(run.stdout).toContain('kb://articles');
      const listed = json<{ tools: { name: string }[] }>(await desk(['list', '--output', 'json']));
      expect(listed.tools.map((tool) => tool.name).sort()).toEqual(DESK_TOOLS);
    });

    it('describe: options with types, enums, defaults, aliases and required marks', async () => {
      const run = await desk(['describe', 'search_tickets']);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('--status');
      expect(run.stdout).toContain('-s');
      expect(run.stdout).toMatch(/open.*pending.*closed/);
      expect(run.stdout).toContain('--no-unassigned');
      expect(run.stdout).toMatch(/--limit[^\n]*integer/);
      expect(run.stdout).toMatch(/20/);
      const create = await desk(['describe', 'create_ticket']);
      expect(create.stdout).toMatch(/--customer-id <string>[^[]*\[required\]/);
    });

    it('--help everywhere: the program, a command, a tool', async () => {
      for (const args of [['--help'], ['help'], ['list', '--help'], ['call', '--help']]) {
        const run = await desk(args);
        expect({ args, code: run.code }).toEqual({ args, code: 0 });
        expect(run.stdout).toContain('Usage: desk');
      }
      const tool = await desk(['call', 'get_ticket', '--help']);
      expect(tool.code).toBe(0);
      expect(tool.stdout).toContain('--ticket-id');
    });

    it('prompt and read', async () => {
      const prompt = await desk(['prompt', 'triage_ticket', '--ticket-id', 'T-2001']);
      expect(prompt.code).toBe(0);
      expect(prompt.stdout).toContain('T-2001');
      const read = await desk(['read', 'kb://articles']);
      expect(read.code).toBe(0);
      expect(read.stdout.length).toBeGreaterThan(20);
      expect((await desk(['read', 'kb://articles/no-such-article'])).code).toBe(4);
    });
  });

  describe('binding arguments from the input schema', () => {
    it('--name value, --name=value, an alias, any case', async () => {
      for (const args of [['--status', 'pending'], ['--status=pending'], ['-s', 'pending'], ['--STATUS', 'pending']]) {
        const found = tickets(await desk(['call', 'search_tickets', ...args, '--output', 'json']));
        expect(found.length).toBeGreaterThan(0);
        expect(found.every((ticket) => ticket.status === 'pending')).toBe(true);
      }
    });

    it('a positional argument', async () => {
      const run = await desk(['call', 'get_ticket', 'T-2002', '--output', 'json']);
      expect(run.code).toBe(0);
      expect(json<Ticket>(run)).toMatchObject({ id: 'T-2002' });
    });

    it('a boolean flag and its negation', async () => {
      const unassigned = tickets(await desk(['call', 'search_tickets', '--unassigned', '--output', 'json']));
      const assigned = tickets(await desk(['call', 'search_tickets', '--no-unassigned', '--output', 'json']));
      expect(unassigned.length).toBeGreaterThan(0);
      expect(unassigned.every((ticket) => ticket.assignee === null)).toBe(true);
      expect(assigned.every((ticket) => ticket.assignee !== null)).toBe(true);
    });

    it('an array, by repeated options and by a comma list', async () => {
      for (const args of [
        ['--columns', 'priority', '--columns', 'id'],
        ['--columns', 'priority,id'],
      ]) {
        const dir = await mkdtemp(join(tmpdir(), 'cli-out-'));
        const run = await desk(['call', 'export_ticket_report', '--status', 'open', ...args, '--out-dir', dir]);
        expect(run.code).toBe(0);
        expect(run.stdout).toContain('Report of');
        const [file] = await readdir(dir);
        expect(file).toMatch(/\.csv$/);
        expect((await readFile(join(dir, file), 'utf8')).split('\n')[0]).toBe('priority,id');
      }
    });

    it('an enum value that is not allowed: exit 2, naming the option and the allowed values', async () => {
      const run = await desk(['call', 'search_tickets', '--status', 'urgent']);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('--status');
      expect(run.stderr).toMatch(/open, pending, closed/);
      expect(run.stdout).toBe('');
    });

    it('an integer that is not one: exit 2, naming the option', async () => {
      for (const value of ['2.5', '12abc']) {
        const run = await desk(['call', 'search_tickets', '--limit', value]);
        expect(run.code).toBe(2);
        expect(run.stderr).toContain('--limit');
        expect(run.stderr).toMatch(/integer/);
      }
    });

    it('--json for the whole argument object, inline or from stdin', async () => {
      const inline = tickets(
        await desk(['call', 'search_tickets', '--json', '{"status":"open","limit":2}', '--output', 'json']),
      );
      expect(inline).toHaveLength(2);
      expect(inline.every((ticket) => ticket.status === 'open')).toBe(true);
      const piped = tickets(
        await desk(['call', 'search_tickets', '--json', '-', '--output', 'json'], {
          stdin: '{"status":"closed","limit":3}',
        }),
      );
      expect(piped.length).toBeGreaterThan(0);
      expect(piped.every((ticket) => ticket.status === 'closed')).toBe(true);
    });
  });

  describe('exit codes', () => {
    it('0 success, 1 tool error, 2 usage, 4 not found', async () => {
      expect((await desk(['call', 'get_ticket', 'T-2001'])).code).toBe(0);
      const failed = await desk(['call', 'get_ticket', 'T-9999']);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain('T-9999');
      const usage = await desk(['call', 'search_tickets', '--colour', 'red']);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toContain('--colour');
      expect((await desk(['frobnicate'])).code).toBe(2);
      const missing = await desk(['call', 'search_tiket']);
      expect(missing.code).toBe(4);
      expect(missing.stderr).toContain('search_tickets');
    });

    it('3 refused: the read-only key calling a write tool, by --api-key or the environment', async () => {
      const byOption = await desk([
        'call',
        'create_ticket',
        '--customer-id',
        'C-1001',
        '--subject',
        'Printer on fire',
        '--description',
        'It is really on fire.',
        '--priority',
        'high',
        '--api-key',
        DESK_KEYS.reader,
      ]);
      expect(byOption.code).toBe(3);
      expect(byOption.stderr).toContain('Refused');
      const byEnv = await desk(['call', 'close_ticket', 'T-2001', '-r', 'Done', '--yes'], {
        env: { DESK_API_KEY: DESK_KEYS.reader },
      });
      expect(byEnv.code).toBe(3);
      const wrongKey = await desk(['list', '--api-key', 'not-a-key']);
      expect(wrongKey.code).toBe(3);
      expect(wrongKey.stderr).toContain('not valid');
    });

    it('2 usage: a key given to a desk without authentication (AUTH_MODE=none) is refused with the reason, not ignored', async () => {
      const invalid = await desk(['list', '--api-key', 'not-a-key'], { env: { AUTH_MODE: 'none' } });
      const reader = await desk(['call', 'close_ticket', 'T-2001', '-r', 'Done.', '--yes'], {
        env: { AUTH_MODE: 'none', DESK_API_KEY: DESK_KEYS.reader },
      });
      for (const run of [invalid, reader]) {
        expect(run.code).toBe(2);
        expect(run.stdout).toBe('');
        expect(run.stderr).toBe(
          'An API key was given (--api-key or $DESK_API_KEY), but this application has no authentication ' +
            '(auth mode "none"), so the key cannot be checked; it is refused rather than ignored. Leave it out ' +
            'to act as the configured operator, or start the application with authentication (auth mode "apiKey" ' +
            'or "oauth") for the key to count.\n',
        );
      }
      // Nothing ran: the ticket the read-only key tried to close is still open for the operator.
      const ticket = await desk(['call', 'get_ticket', 'T-2001', '--output', 'json'], { env: { AUTH_MODE: 'none' } });
      expect(json<Ticket>(ticket).status).not.toBe('closed');
    });

    it('3 refused: a destructive tool without --yes where no one can be asked; --yes confirms it', async () => {
      const refused = await desk(['call', 'close_ticket', 'T-2001', '--resolution', 'Password reset link resent.']);
      expect(refused.code).toBe(3);
      expect(refused.stderr).toContain('--yes');
      const confirmed = await desk(['call', 'close_ticket', 'T-2001', '-r', 'Password reset link resent.', '--yes']);
      expect(confirmed.code).toBe(0);
      expect(confirmed.stdout).toContain('closed');
    });
  });

  describe('a reader that stops reading (desk list | head -1)', () => {
    /** Runs `list` with stdout piped to a reader that closes its end once it has `lines` lines (0: at once). */
    function listInto(lines: number) {
      return new Promise<Run>((resolve, reject) => {
        const child = spawn(process.execPath, [DESK_CLI, 'list'], {
          env: { PATH: process.env.PATH, AUDIT_FILE: newAuditFile() },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        if (lines === 0) child.stdout.destroy();
        child.stdout.on('data', (chunk: Buffer) => {
          stdout += chunk.toString();
          if (stdout.split('\n').length > lines) child.stdout.destroy();
        });
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    }

    it('after the first line: the CLI ends quietly, exit 0, no EPIPE stack', async () => {
      const run = await listInto(1);
      expect(run.stdout).toMatch(/^Tools:\n/);
      expect(run).toMatchObject({ code: 0, stderr: '' });
    });

    it('before any output: the same', async () => {
      expect(await listInto(0)).toEqual({ code: 0, stdout: '', stderr: '' });
    });
  });

  it('shows progress as plain lines when stderr is not a terminal', async () => {
    const run = await desk(['call', 'export_ticket_report']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('progress 4/20 (20%) 4 of 20 tickets');
    expect(run.stderr).toContain('progress 20/20 (100%) 20 of 20 tickets');
  });

  it('cancels a long call on Ctrl-C (SIGINT): the tool sees its signal, the exit code is 130', async () => {
    const auditFile = newAuditFile();
    const run = await desk(
      ['call', 'export_ticket_report'],
      {
        env: { SUPPORT_REPORT_STEP_MS: '400' },
        onStderr: { when: /progress 4\/20/, then: (child) => child.kill('SIGINT') },
      },
      auditFile,
    );
    expect(run.code).toBe(130);
    expect(run.stderr).toContain('Interrupted');
    expect(run.stderr).not.toContain('progress 20/20');
    const [record] = await auditRecords(
      commandLineTrail(auditFile),
      (entry) => entry.target === 'export_ticket_report',
    );
    // The host cancelled the call with the CLI's reason: the signal the tool is given (ctx.signal).
    expect(record).toMatchObject({ transport: 'cli', outcome: 'cancelled' });
    expect(record.error).toContain('SIGINT');
  });

  it('writes the audit record with transport cli and the principal of the key (or the configured operator)', async () => {
    const auditFile = newAuditFile();
    await desk(['call', 'get_ticket', 'T-2003', '--api-key', DESK_KEYS.reader], {}, auditFile);
    await desk(['call', 'get_ticket', 'T-2004'], {}, auditFile);
    const records = await auditRecords(commandLineTrail(auditFile), (entry) => entry.target === 'get_ticket', 2);
    expect(records.map((record) => [record.transport, record.principal, record.outcome])).toEqual([
      ['cli', 'desk-reader', 'ok'],
      ['cli', 'local-operator', 'ok'],
    ]);
    expect(records[0].client).toEqual({ name: 'desk', version: 'cli' });
  });
});
