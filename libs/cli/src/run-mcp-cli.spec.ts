import 'reflect-metadata';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Injectable, Module, type DynamicModule } from '@nestjs/common';
import { McpArgs, McpContext, McpTool, image, type McpCallContext } from '#libs/core';
import { McpModule, type McpModuleOptions } from '#libs/hosting';
import { WebhookAuditSink, type AuditRecord } from '#libs/security';
import { fakeCliIo, type FakeTerminal } from './testing/fake-cli-io';
import { runMcpCli } from './run-mcp-cli';

/** 8 bytes of a PNG's signature, as a tool's image. */
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The tickets the fixture's destructive tool deleted (its calls in this process). */
const deleted: string[] = [];

@Injectable()
class RunnerTools {
  @McpTool({
    description: 'Deletes a ticket for good',
    confirm: 'Delete this ticket for good?',
    annotations: { destructiveHint: true },
    input: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    cli: { positional: ['id'] },
  })
  delete_ticket(@McpArgs() { id }: { id: string }) {
    deleted.push(id);
    return `Deleted ${id}.`;
  }

  @McpTool({ description: 'Draws a chart' })
  render_chart() {
    return [image(PNG.toString('base64'), 'image/png')];
  }

  @McpTool({ description: 'Exports in three steps' })
  export_rows(@McpContext() ctx: McpCallContext) {
    for (let step = 1; step <= 3; step++) {
      ctx.reportProgress(step, 3, `step ${step}`);
      if (step === 2) ctx.log.warning('row 2 has no owner');
    }
    return 'exported 3 rows';
  }
}

function fixtureModule(audit: string, options: Partial<McpModuleOptions> = {}): DynamicModule {
  @Module({})
  class RunnerFixtureModule {}
  return {
    module: RunnerFixtureModule,
    imports: [
      McpModule.forRoot({ name: 'runner-fixture', version: '1.0.0', http: false, audit: { file: audit }, ...options }),
    ],
    providers: [RunnerTools],
  };
}

describe('runMcpCli', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'run-mcp-cli-'));
    deleted.length = 0;
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  /** Runs `argv` on the fixture module with a fake terminal, without ending the process. */
  async function cli(argv: string[], terminal: FakeTerminal = {}, module?: DynamicModule) {
    const io = fakeCliIo(terminal);
    const app = module ?? fixtureModule(join(dir, 'audit.jsonl'));
    const code = await runMcpCli(app, { name: 'fx', argv, io, exit: false });
    return { code, io };
  }

  describe('a destructive tool on a terminal', () => {
    it('asks [y/N]; y runs it', async () => {
      const { code, io } = await cli(['call', 'delete_ticket', 'T-7'], { tty: true, answers: ['y'] });
      expect(io.questions).toEqual(['Delete this ticket for good? [y/N] ']);
      expect(code).toBe(0);
      expect(io.out).toBe('Deleted T-7.\n');
      expect(deleted).toEqual(['T-7']);
    });

    it('asks [y/N]; n refuses with exit 3, the tool not run', async () => {
      const { code, io } = await cli(['call', 'delete_ticket', 'T-7'], { tty: true, answers: ['n'] });
      expect(io.questions).toEqual(['Delete this ticket for good? [y/N] ']);
      expect(code).toBe(3);
      expect(io.out).toBe('');
      expect(io.err).toBe(
        'The user did not confirm "delete_ticket" (decline); it was not run. Do not retry without asking the user.\n',
      );
      expect(deleted).toEqual([]);
    });

    it('does not ask with --yes', async () => {
      const { code, io } = await cli(['--yes', 'call', 'delete_ticket', 'T-8'], { tty: true });
      expect(io.questions).toEqual([]);
      expect(code).toBe(0);
      expect(io.out).toBe('Deleted T-8.\n');
    });
  });

  it('draws the progress bar in place on a terminal, log lines above it, and ends its line before the result', async () => {
    const { code, io } = await cli(['call', 'export_rows'], { tty: true, columns: 50 });
    expect(code).toBe(0);
    expect(io.out).toBe('exported 3 rows\n');
    expect(io.err).toBe(
      [
        `\r${'[########................] 1/3 step 1'.padEnd(49)}`,
        `\r${'[################........] 2/3 step 2'.padEnd(49)}`,
        `\r${' '.repeat(49)}\r`,
        'warning export_rows: row 2 has no owner\n',
        `\r${'[################........] 2/3 step 2'.padEnd(49)}`,
        `\r${'[########################] 3/3 step 3'.padEnd(49)}`,
        '\n',
      ].join(''),
    );
  });

  it('saves an image in --out-dir and names the file on stderr', async () => {
    const out = join(dir, 'charts');
    const { code, io } = await cli(['call', 'render_chart', '--out-dir', out]);
    expect(code).toBe(0);
    expect(io.out).toBe('');
    expect(io.err).toBe(`saved ${join(out, 'render_chart-1.png')}\n`);
    expect(await readdir(out)).toEqual(['render_chart-1.png']);
    expect(await readFile(join(out, 'render_chart-1.png'))).toEqual(PNG);
  });

  it('names the image on stderr, with how to save it, without --out-dir', async () => {
    const { code, io } = await cli(['call', 'render_chart']);
    expect(code).toBe(0);
    expect(io.err).toBe('[image, image/png, 8 bytes: pass --out-dir <dir> to save it]\n');
  });

  it.each([['frobnicate'], ['toString'], ['constructor'], ['__proto__'], ['hasOwnProperty']])(
    'answers an unknown command (%s) with exit 2 and the usage on stderr',
    async (command) => {
      const { code, io } = await cli([command, 'x']);
      expect(code).toBe(2);
      expect(io.out).toBe('');
      expect(io.err).toMatch(new RegExp(`^Unknown command "${command}"\\.\\n\\nUsage: fx <command> \\[options\\]\\n`));
    },
  );

  describe('an API key where the application has no authentication', () => {
    const refusal =
      'An API key was given (--api-key or $MCP_API_KEY), but this application has no authentication (auth mode ' +
      '"none"), so the key cannot be checked; it is refused rather than ignored. Leave it out to act as the ' +
      'configured operator, or start the application with authentication (auth mode "apiKey" or "oauth") for the key to count.\n';

    it('--api-key: refused with the reason and exit 2, nothing run', async () => {
      const { code, io } = await cli(['call', 'delete_ticket', 'T-9', '--yes', '--api-key', 'read-only-key']);
      expect(code).toBe(2);
      expect(io.out).toBe('');
      expect(io.err).toBe(refusal);
      expect(deleted).toEqual([]);
    });

    it('the API key variable: the same', async () => {
      process.env.MCP_API_KEY = 'read-only-key';
      try {
        const { code, io } = await cli(['list']);
        expect(code).toBe(2);
        expect(io.out).toBe('');
        expect(io.err).toBe(refusal);
      } finally {
        delete process.env.MCP_API_KEY;
      }
    });
  });

  describe('audited beside a host, with a SIEM that is down', () => {
    /** A SIEM's webhook receiver: down (503) or up, counting the deliveries it was offered. */
    let siem: Server;
    let up = false;
    let offered = 0;
    const received: AuditRecord[] = [];

    beforeAll(async () => {
      siem = createServer((req, res) => {
        offered++;
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', () => {
          if (up)
            received.push(
              ...body
                .split('\n')
                .filter(Boolean)
                .map((line) => JSON.parse(line) as AuditRecord),
            );
          res.writeHead(up ? 200 : 503).end();
        });
      });
      await new Promise<void>((resolve) => siem.listen(0, '127.0.0.1', resolve));
    });
    afterAll(() => new Promise((resolve) => siem.close(resolve)));

    it("waits for no SIEM that is down: the command's records wait in the command line's spool, and the next command delivers them", async () => {
      const forwarding = fixtureModule(join(dir, 'audit.jsonl'), {
        audit: {
          file: join(dir, 'audit.jsonl'),
          chain: 'desk-1',
          forward: [
            new WebhookAuditSink({
              url: `http://127.0.0.1:${(siem.address() as AddressInfo).port}/audit`,
              secret: 'a-siem-webhook-secret-of-32-bytes!!',
            }),
          ],
        },
      });
      const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
      let first;
      let logged = '';
      try {
        first = await cli(['call', 'export_rows'], {}, forwarding);
      } finally {
        logged = stderr.mock.calls.map(([text]) => String(text)).join('');
        stderr.mockRestore();
      }
      expect(first.code).toBe(0);
      // Offered once, refused: not again and again until the shutdown timeout.
      expect(offered).toBe(1);
      expect(logged).toContain('for webhook, which cannot take them now (127.0.0.1');
      expect(await readdir(join(dir, 'spool'))).toContain('desk-1.cli.webhook.forward.jsonl');
      up = true;
      const second = await cli(['call', 'export_rows'], {}, forwarding);
      expect(second.code).toBe(0);
      // The command line's own chain, beside the host's (desk-1): both commands' records, in order.
      expect(received.map((record) => [record.chain, record.seq, record.target])).toEqual([
        ['desk-1.cli', 1, 'export_rows'],
        ['desk-1.cli', 2, 'export_rows'],
      ]);
      expect(await readdir(dir)).toEqual(expect.arrayContaining(['audit.cli.jsonl']));
      expect(await readdir(dir)).not.toContain('audit.jsonl');
    });
  });

  it('takes a command in any case, its --help too', async () => {
    const { code, io } = await cli(['CALL', 'export_rows', '--help']);
    expect(code).toBe(0);
    expect(io.out).toContain('fx call export_rows');
    expect(io.out).not.toContain('Usage: fx <command>');
  });

  it('reports a bad global option with exit 2, without starting the application', async () => {
    const { code, io } = await cli(['list', '--output', 'xml']);
    expect(code).toBe(2);
    expect(io.err).toBe('--output: expected one of text, json; got "xml"\n');
  });

  it('reports a start-up failure on stderr with a non-zero code, without throwing or a stack', async () => {
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const bad = fixtureModule(join(dir, 'audit.jsonl'), { pageSize: -1, colour: 'red' } as Partial<McpModuleOptions>);
      const { code, io } = await cli(['list'], {}, bad);
      expect(code).not.toBe(0);
      expect(io.err).toMatch(/^MCP host cannot start: 2 problem\(s\) found\n/);
      expect(io.err).toContain('McpModule option "colour"');
      expect(io.err).toContain('McpModule option "pageSize"');
      expect(io.err).not.toMatch(/\n\s+at /);
      // Said once: not again (with its stack) by the application's logger on the process's stderr.
      const logged = stderr.mock.calls.map(([text]) => String(text)).join('');
      expect(logged).not.toContain('cannot start');
      expect(logged).not.toMatch(/\n\s+at /);
    } finally {
      stderr.mockRestore();
    }
  });
});
