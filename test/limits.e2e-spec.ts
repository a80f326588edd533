import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { McpCatalog } from '#libs/catalog';
import { connect, type Connected, type TransportName } from './support/connect';

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each<TransportName>(['http', 'stdio'])('per-tool time and concurrency limits over %s', (transport) => {
  let connected: Connected;
  const aborted: string[] = [];

  beforeAll(async () => {
    connected = await connect(transport, {}, { toolTimeoutMs: 2_000 });
    const catalog = connected.app.get(McpCatalog);
    catalog.addTool(
      { name: 'stubborn', description: 'Ignores its signal for a while', timeoutMs: 150 },
      async (_args, ctx) => {
        ctx.signal.addEventListener('abort', () => aborted.push(String((ctx.signal.reason as Error).message)));
        await sleep(600);
        return 'too late';
      },
    );
    catalog.addTool({ name: 'single', description: 'One at a time', maxConcurrency: 1 }, async () => {
      await sleep(300);
      return 'done';
    });
  });
  afterAll(() => connected.close());

  it('answers a call that outlives its timeout with isError at the timeout, and fires its signal', async () => {
    const started = Date.now();
    const result = (await connected.client.callTool({ name: 'stubborn' })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      'Tool "stubborn" timed out after 150 ms and was stopped. Try again with a narrower request.',
    );
    expect(Date.now() - started).toBeLessThan(550); // answered at the timeout, not when the tool gave up
    expect(aborted).toEqual(['timed out after 150 ms']);
  });

  it('refuses calls beyond the tool concurrency limit until one finishes', async () => {
    const [first, second] = await Promise.all([
      connected.client.callTool({ name: 'single' }),
      sleep(50).then(() => connected.client.callTool({ name: 'single' })),
    ]);
    expect(textOf(first)).toBe('done');
    expect(second).toEqual({
      content: [{ type: 'text', text: 'Tool "single" is busy (1 call(s) already running). Retry in a moment.' }],
      isError: true,
    });
    expect(textOf(await connected.client.callTool({ name: 'single' }))).toBe('done');
  });
});

describe('secret redaction', () => {
  it('removes secrets from tool results, with the built-in and configured patterns', async () => {
    const connected = await connect('http', {}, { redact: { patterns: ['TKT-SECRET-\\d+'] } });
    try {
      connected.app.get(McpCatalog).addTool({ name: 'leaky', description: 'Returns things it should not' }, () => ({
        note: 'db at postgres://desk:hunter2@db/desk, password=hunter2, ref TKT-SECRET-42',
      }));
      const result = (await connected.client.callTool({ name: 'leaky' })) as CallToolResult;
      expect(result.structuredContent).toEqual({
        note: 'db at postgres://desk:[REDACTED]@db/desk, password=[REDACTED], ref [REDACTED]',
      });
      expect(textOf(result)).not.toContain('hunter2');
    } finally {
      await connected.close();
    }
  });
});
