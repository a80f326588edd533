import type { INestApplication } from '@nestjs/common';
import { McpModule } from '#libs/hosting';
import { baseUrlOf, startTestApp } from './support/fixture-app';
import { ERA_CLIENTS, type EraClient } from './support/era-clients';

// Upstream processes start, restart and are killed here: on a busy CI machine that takes longer
// than jest's 5 s default, which is a limit for a hung test, not a timing goal.
jest.setTimeout(30_000);

const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

/** One gateway, clients of both eras: what the upstream speaks (2025-11-25) does not limit them. */
describe.each(ERA_CLIENTS)('the gateway for a $title', ({ connect, expected }) => {
  let app: INestApplication;
  let client: EraClient;
  const asked: string[] = [];

  beforeAll(async () => {
    app = await startTestApp({
      imports: [
        McpModule.forRoot({
          name: 'gateway',
          version: '1.0.0',
          toolSearch: true,
          gateway: {
            upstreams: [
              {
                name: 'everything',
                transport: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] },
                tools: { deny: ['get-env'] },
              },
            ],
          },
        }),
      ],
    });
    const url = `${await baseUrlOf(app)}/mcp`;
    client = await connect(url, 'era-client', {
      elicit: (message) => (asked.push(message), { action: 'decline' }),
    });
  });
  afterAll(async () => {
    await client?.close();
    await app?.close();
  });

  it(`speaks ${expected} and lists the upstream's tools under its namespace`, async () => {
    expect(client.protocolVersion()).toBe(expected);
    const names = (await client.listTools()).map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['everything__echo', 'search_tools', 'call_tool']));
  });

  it('calls an upstream tool with progress relayed', async () => {
    const seen: number[] = [];
    const result = await client.callTool(
      'everything__trigger-long-running-operation',
      { duration: 0.3, steps: 3 },
      { onprogress: ({ progress }) => seen.push(progress) },
    );
    expect(JSON.stringify(result.content)).toContain('completed');
    expect(seen).toEqual([1, 2, 3]);
  });

  it('reads an upstream template through its rewritten URI', async () => {
    const read = await client.readResource('everything+demo://resource/dynamic/text/3');
    expect(read.contents[0].uri).toBe('everything+demo://resource/dynamic/text/3');
  });

  it('finds an upstream tool with search_tools and calls it with call_tool', async () => {
    const found = await client.callTool('search_tools', { query: 'add two numbers together, sum' });
    const names = (found.structuredContent as { tools: { name: string }[] }).tools.map(({ name }) => name);
    expect(names).toContain('everything__get-sum');
    const sum = await client.callTool('call_tool', { name: 'everything__get-sum', arguments: { a: 4, b: 5 } });
    expect(JSON.stringify(sum.content)).toContain('9');
  });

  it("relays the upstream's elicitation to this client, and its answer back", async () => {
    asked.length = 0;
    const result = await client.callTool('everything__trigger-elicitation-request', {});
    expect(asked.length).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(result.content)).toMatch(/decline/i);
  });
});
