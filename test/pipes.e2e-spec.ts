import { Injectable, ParseIntPipe, type PipeTransform } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { McpArgs, McpStartupError, McpTool } from '#libs/core';
import { McpModule, type McpModuleOptions } from '#libs/hosting';
import { Multiplier, PipeFixtureModule, PipeTools, TimesPipe } from './fixtures/pipe.fixtures';
import { connect, type TransportName } from './support/connect';

describe.each<TransportName>(['http', 'stdio'])('pipes on @McpArgs over %s', (transport) => {
  it('runs a pipe given as a class, as an instance, and ones with injected dependencies', async () => {
    const connected = await connect(transport, {}, {}, (options) => PipeFixtureModule.register(options));
    try {
      const { client } = connected;
      expect((await client.callTool({ name: 'parseWithClass', arguments: { n: '42' } })).structuredContent).toEqual({
        n: 42,
        type: 'number',
      });
      expect((await client.callTool({ name: 'parseWithInstance', arguments: { n: '7' } })).structuredContent).toEqual({
        n: 7,
        type: 'number',
      });
      expect((await client.callTool({ name: 'times', arguments: { n: 4 } })).structuredContent).toEqual({ n: 40 });
      // Not a provider: made with Multiplier from the module of PipeTools.
      expect((await client.callTool({ name: 'offset', arguments: { n: 4 } })).structuredContent).toEqual({ n: 14 });
      expect((await client.callTool({ name: 'scopedOffset', arguments: { n: 5 } })).structuredContent).toEqual({
        n: 15,
      });
      expect((await client.callTool({ name: 'scopedOffset', arguments: { n: 6 } })).structuredContent).toEqual({
        n: 16,
      });
      // The pipe's refusal reaches the model as an error result naming the problem.
      const refused = (await client.callTool({
        name: 'parseWithClass',
        arguments: { n: 'forty-two' },
      })) as CallToolResult;
      expect(refused).toEqual({
        content: [{ type: 'text', text: 'Validation failed (numeric string is expected)' }],
        isError: true,
      });
    } finally {
      await connected.close();
    }
  });

  it('runs pipe classes on prompt arguments and resource template variables', async () => {
    const connected = await connect(transport, {}, {}, (options) => PipeFixtureModule.register(options));
    try {
      const { client } = connected;
      const prompt = await client.getPrompt({ name: 'repeat', arguments: { word: 'hi', times: '3' } });
      expect(prompt.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'hi hi hi' } }]);
      const resource = await client.readResource({ uri: 'numbers://12' });
      expect(resource.contents).toEqual([{ uri: 'numbers://12', mimeType: 'text/plain', text: '120 is a number' }]);
      // Prompts and resources report failures as protocol errors, the pipe's message included.
      await expect(client.getPrompt({ name: 'repeat', arguments: { word: 'hi', times: 'three' } })).rejects.toThrow(
        'MCP error -32603: prompts/get "repeat" failed: Validation failed (numeric string is expected)',
      );
    } finally {
      await connected.close();
    }
  });
});

describe('two apps in one process hosting the same tool class', () => {
  it('run each with the pipes of its own container', async () => {
    // The second app provides another Multiplier: its pipes must not reach the first app's calls.
    const other = (options: Partial<McpModuleOptions>) => ({
      ...PipeFixtureModule.register(options),
      providers: [{ provide: Multiplier, useValue: { factor: 100 } }, TimesPipe, PipeTools],
    });
    const first = await connect('stdio', {}, {}, (options) => PipeFixtureModule.register(options));
    const second = await connect('stdio', {}, {}, other);
    try {
      const n = async (app: typeof first, name: string) =>
        (await app.client.callTool({ name, arguments: { n: 4 } })).structuredContent;
      expect(await n(first, 'times')).toEqual({ n: 40 });
      expect(await n(first, 'offset')).toEqual({ n: 14 });
      expect(await n(second, 'times')).toEqual({ n: 400 });
      expect(await n(second, 'offset')).toEqual({ n: 104 });
    } finally {
      await first.close();
      await second.close();
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
  @McpTool({ description: 'Its pipes cannot be made', input: z.object({ n: z.string(), m: z.string() }) })
  broken(@McpArgs('n', NeedsUnregistered) n: string, @McpArgs('m', ParseIntPipe, NeedsUnregistered) m: number) {
    return n + m;
  }
}

describe('a pipe class that cannot be created', () => {
  it('stops the start-up, naming the handler, each parameter and pipe, and the fix', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [McpModule.forRoot({ name: 'x', version: '1', http: false })],
      providers: [BrokenPipeTools],
    }).compile();
    const error = await moduleRef.init().then(
      () => undefined,
      (e: unknown) => e,
    );
    await moduleRef.close().catch(() => undefined);
    expect(error).toBeInstanceOf(McpStartupError);
    // Nest's own reason, first line only: it names the missing dependency and the module searched.
    const reason =
      "Nest can't resolve dependencies of the NeedsUnregistered (?). Please make sure that the argument Unregistered at index [0] is available in the RootTestModule module.";
    const fix = (property: string) =>
      `provide its dependencies in the module of BrokenPipeTools, or register NeedsUnregistered as a provider, or pass an instance: @McpArgs('${property}', new NeedsUnregistered(...))`;
    expect((error as McpStartupError).diagnostics).toEqual([
      {
        where: 'BrokenPipeTools.broken',
        problem: `pipe NeedsUnregistered of parameter #0 (@McpArgs('n')) cannot be created: ${reason}`,
        fix: fix('n'),
      },
      {
        where: 'BrokenPipeTools.broken',
        problem: `pipe NeedsUnregistered of parameter #1 (@McpArgs('m')) cannot be created: ${reason}`,
        fix: fix('m'),
      },
    ]);
  });
});
