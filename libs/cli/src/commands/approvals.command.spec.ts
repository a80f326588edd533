import 'reflect-metadata';
import { Injectable, Module, type DynamicModule, type INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { McpArgs, McpTool } from '#libs/core';
import { McpInvoker, McpModule } from '#libs/hosting';
import { hashApiKey } from '#libs/security';
import { MapBackplane } from '../../../cluster/src/testing/map-backplane';
import { fakeCliIo } from '../testing/fake-cli-io';
import { runMcpCli } from '../run-mcp-cli';

const KEYS = { ops: 'ops-approver-key-0123', reader: 'reader-key-0123456789' };

@Injectable()
class WipeTools {
  readonly wiped: string[] = [];

  @McpTool({
    description: 'Wipes an archive',
    annotations: { destructiveHint: true },
    input: { type: 'object', properties: { archive: { type: 'string' } }, required: ['archive'] },
  })
  wipe(@McpArgs('archive') archive: string) {
    this.wiped.push(archive);
    return `wiped ${archive}`;
  }
}

/**
 * The application of a host and of its command line: approvals shared through one backplane (a
 * command line is a process of its own; the `cluster` option is how it sees a host's requests).
 */
function appModule(backplane: MapBackplane): DynamicModule {
  @Module({})
  class ApprovalsCliModule {}
  return {
    module: ApprovalsCliModule,
    imports: [
      McpModule.forRoot({
        name: 'approvals-cli',
        version: '1.0.0',
        http: false,
        confirmDestructive: true,
        auth: {
          mode: 'apiKey',
          keys: [
            { hash: hashApiKey(KEYS.ops), principal: 'ops', roles: ['approver'] },
            { hash: hashApiKey(KEYS.reader), principal: 'reader' },
          ],
        },
        // The operator at the machine: an approver, and the principal of the calls made without a key.
        stdioPrincipal: { id: 'operator', roles: ['approver'] },
        cluster: { backplane },
      }),
    ],
    providers: [WipeTools],
  };
}

describe('runMcpCli: approvals', () => {
  let backplane: MapBackplane;
  let host: INestApplicationContext;

  beforeEach(async () => {
    backplane = new MapBackplane();
    host = await Test.createTestingModule({ imports: [appModule(backplane)] }).compile();
    await host.init();
  });
  afterEach(() => host.close());

  async function cli(argv: string[]) {
    const io = fakeCliIo();
    const code = await runMcpCli(appModule(backplane), { name: 'fx', argv, io, exit: false });
    return { code, out: io.out, err: io.err };
  }

  /** A call of the host's operator that waits for an approver (no one to ask in the client). */
  async function held(archive: string): Promise<string> {
    const result = await host.get(McpInvoker).callTool('wipe', { archive });
    expect(result.isError).toBe(true);
    const listed = await cli(['approvals', '--output', 'json', '--api-key', KEYS.ops]);
    expect(listed.code).toBe(0);
    return (JSON.parse(listed.out) as { id: string; arguments: { archive: string } }[]).find(
      (approval) => approval.arguments.archive === archive,
    )!.id;
  }

  it('lists the waiting requests, one a line, for an approver; refuses anyone else', async () => {
    const id = await held('q1');
    const listed = await cli(['approvals', '--api-key', KEYS.ops]);
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(
      new RegExp(
        `^${id}  pending  wipe  by operator \\(in-process\\)  expires \\d{4}-.+Z\\n    \\{"archive":"q1"\\}\\n$`,
      ),
    );
    expect(await cli(['approvals', 'list', '--status', 'approved', '--api-key', KEYS.ops])).toEqual({
      code: 0,
      out: '',
      err: 'No approval requests (approved).\n',
    });
    expect(await cli(['approvals', '--api-key', KEYS.reader])).toEqual({
      code: 3,
      out: '',
      err: 'Refused: "reader" may not decide approval requests: that needs one of the roles "admin", "approver" or the scopes "mcp:admin", "mcp:approve".\n',
    });
  });

  it('approves as the approver the key proves, never as the operator whose call waits; the retry runs once', async () => {
    const id = await held('q2');
    expect(await cli(['approvals', 'approve', id])).toEqual({
      code: 3,
      out: '',
      err: 'Refused: "operator" may not decide a request of its own: another approver must (approvals.allowSelfApproval is off).\n',
    });
    expect(await cli(['approvals', 'approve', id, '--reason=a copy exists', '--api-key', KEYS.ops])).toEqual({
      code: 0,
      out: `Approved ${id}: "wipe" of operator (a copy exists). Its retry with the same arguments runs, once.\n`,
      err: '',
    });
    expect(await host.get(McpInvoker).callTool('wipe', { archive: 'q2' })).toEqual({
      content: [{ type: 'text', text: 'wiped q2' }],
    });
    expect(host.get(WipeTools).wiped).toEqual(['q2']);
    expect(await cli(['approvals', 'deny', id, '--api-key', KEYS.ops])).toEqual({
      code: 1,
      out: '',
      err: `Refused: Approval request ${id} is already used\n`,
    });
    expect((await cli(['approvals', 'deny', 'nope', '--api-key', KEYS.ops])).code).toBe(4);
  });

  it('says how to use it when the words are wrong, before anything is decided', async () => {
    expect(await cli(['approvals', 'approve'])).toMatchObject({
      code: 2,
      err: expect.stringMatching(/^approvals approve: give the request's id; use "fx approvals \[list\]/),
    });
    expect((await cli(['approvals', 'grant', 'x'])).err).toMatch(/^approvals: "grant" is no subcommand;/);
    expect((await cli(['approvals', '--colour', 'red'])).err).toMatch(/^approvals: unknown option "--colour";/);
    expect(await cli(['approvals', 'approve', 'x', '--reason'])).toEqual({
      code: 2,
      out: '',
      err: '--reason: expected a value\n',
    });
  });
});
