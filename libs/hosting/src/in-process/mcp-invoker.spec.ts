import 'reflect-metadata';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { McpTool } from '#libs/core';
import { McpModule } from '../mcp.module';
import { McpInvocationError } from './mcp-invocation.error';
import { McpInvoker } from './mcp-invoker';

const calls: string[] = [];

@Injectable()
class OperatorTools {
  @McpTool({ description: 'Purges the cache' })
  purge_cache() {
    calls.push('purge_cache');
    return 'purged';
  }
}

describe('McpInvoker with auth mode none', () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'mcp-invoker-'))));
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('refuses a credential it cannot check rather than ignoring it: nothing runs, the refusal is audited', async () => {
    @Module({
      imports: [
        McpModule.forRoot({
          name: 'no-auth',
          version: '1.0.0',
          http: false,
          auth: { mode: 'none' },
          audit: { file: join(dir, 'audit.jsonl') },
        }),
      ],
      providers: [OperatorTools],
    })
    class NoAuthModule {}
    const app = await NestFactory.createApplicationContext(NoAuthModule, { logger: false });
    await app.init();
    const invoker = app.get(McpInvoker);
    const refused = await invoker.callTool('purge_cache', {}, { credential: 'read-only-key' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(McpInvocationError);
    expect(refused).toMatchObject({
      code: -32600,
      outcome: 'invalid',
      message:
        "A credential was given, but this host has no authentication (auth: { mode: 'none' }), so it cannot be " +
        "checked; it is refused rather than ignored. Leave it out to call as the configured stdioPrincipal, or configure auth mode 'apiKey' or 'oauth'.",
    });
    expect(calls).toEqual([]);
    // Without a credential, the configured stdioPrincipal (anonymous by default) calls.
    expect(await invoker.callTool('purge_cache')).toEqual({ content: [{ type: 'text', text: 'purged' }] });
    expect(calls).toEqual(['purge_cache']);
    await app.close();
    const records = (await readFile(join(dir, 'audit.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.map(({ outcome, principal, transport }) => ({ outcome, principal, transport }))).toEqual([
      { outcome: 'invalid', principal: null, transport: 'in-process' },
      { outcome: 'ok', principal: 'anonymous', transport: 'in-process' },
    ]);
  });
});
