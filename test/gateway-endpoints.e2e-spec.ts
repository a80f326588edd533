import type { INestApplication } from '@nestjs/common';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { McpModule, type McpModuleOptions } from '#libs/hosting';
import { baseUrlOf, connectHttpClient, startTestApp } from './support/fixture-app';

// Upstream processes start, restart and are killed here: on a busy CI machine that takes longer
// than jest's 5 s default, which is a limit for a hung test, not a timing goal.
jest.setTimeout(30_000);

const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');

/** An endpoint whose only tools are one upstream's, through its own filter. */
const upstreamOnly = (name: string, allow: string[]): Partial<McpModuleOptions> => ({
  name,
  version: '1.0.0',
  path: `/mcp/${name}`,
  include: [],
  gateway: {
    upstreams: [
      {
        name: 'everything',
        transport: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] },
        tools: { allow },
        prompts: { allow: [] },
        resources: { allow: [] },
      },
    ],
  },
});

describe('two gateways in one application, each with its own upstreams', () => {
  let app: INestApplication;
  const clients: Record<string, Client> = {};

  beforeAll(async () => {
    app = await startTestApp({
      imports: [
        McpModule.forRoot(upstreamOnly('ops', ['echo']) as McpModuleOptions),
        McpModule.forRootAsync({
          useFactory: () =>
            ({ ...upstreamOnly('finance', ['get-sum']), admin: false, metrics: false }) as McpModuleOptions,
          health: false,
        }),
      ],
    });
    const base = await baseUrlOf(app);
    for (const name of ['ops', 'finance']) clients[name] = await connectHttpClient(`${base}/mcp/${name}`);
  });
  afterAll(async () => {
    await Promise.all(Object.values(clients).map((client) => client.close()));
    await app?.close();
  });

  it('lists and calls on each endpoint only the upstream entries that endpoint has', async () => {
    expect((await clients.ops.listTools()).tools.map((tool) => tool.name)).toEqual(['everything__echo']);
    expect((await clients.finance.listTools()).tools.map((tool) => tool.name)).toEqual(['everything__get-sum']);
    const sum = (await clients.finance.callTool({
      name: 'everything__get-sum',
      arguments: { a: 1, b: 2 },
    })) as CallToolResult;
    expect((sum.content[0] as { text: string }).text).toContain('3');
    await expect(clients.ops.callTool({ name: 'everything__get-sum', arguments: { a: 1, b: 2 } })).rejects.toThrow(
      /everything__get-sum/,
    );
  });
});
