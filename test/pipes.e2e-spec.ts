import { Injectable, type PipeTransform } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { McpArgs, McpStartupError, McpTool } from '#libs/core';
import { McpModule } from '#libs/hosting';
import { PipeFixtureModule } from './fixtures/pipe.fixtures';
import { connect, type TransportName } from './support/connect';

describe.each<TransportName>(['http', 'stdio'])('pipes on @McpArgs over %s', (transport) => {
  it('runs a pipe given as a class, as an instance, and ones with injected dependencies', async () => {
    const connected = await connect(transport, {}, {}, (options) => PipeFixtureModule.register(options));
    try {
      const { client } = connected;
      expect((await client.callTool({ name: 'parseWithClass', arguments: { n: '42' } })).structuredContent).toEqual({ n: 42, type: 'number' });
      expect((await client.callTool({ name: 'parseWithInstance', arguments: { n: '7' } })).structuredContent).toEqual({ n: 7, type: 'number' });
      expect((await client.callTool({ name: 'times', arguments: { n: 4 } })).structuredContent).toEqual({ n: 40 });
      // Not a provider: made with Multiplier from the module of PipeTools.
      expect((await client.callTool({ name: 'offset', arguments: { n: 4 } })).structuredContent).toEqual({ n: 14 });
      // The pipe's refusal reaches the model as an error result naming the problem.
      const refused = (await client.callTool({ name: 'parseWithClass', arguments: { n: 'forty-two' } })) as CallToolResult;
      expect(refused).toEqual({ content: [{ type: 'text', text: 'Validation failed (numeric string is expected)' }], isError: true });
    } finally {
      await connected.close();
    }
  });
});

class Unregistered {}

@Injectable()
class NeedsUnregistered implements PipeTransform {
  constructor(readonly dependency: Unregistered) {}
  transform(value: unknown) {
    return value;
  }
}

@Injectable()
class BrokenPipeTools {
  @McpTool({ description: 'Its pipe cannot be made', input: z.object({ n: z.string() }) })
  broken(@McpArgs('n', NeedsUnregistered) n: string) {
    return n;
  }
}

describe('a pipe class that cannot be created', () => {
  it('stops the start-up, naming the handler and the fix', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [McpModule.forRoot({ name: 'x', version: '1', http: false })], providers: [BrokenPipeTools] }).compile();
    const error = await moduleRef.init().then(() => undefined, (e: unknown) => e);
    await moduleRef.close().catch(() => undefined);
    expect(error).toBeInstanceOf(McpStartupError);
    expect((error as McpStartupError).diagnostics).toEqual([
      expect.objectContaining({ where: 'BrokenPipeTools.broken', problem: expect.stringContaining('a pipe of its parameters cannot be created') }),
    ]);
  });
});
