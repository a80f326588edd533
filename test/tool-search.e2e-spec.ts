import { Injectable, type INestApplication, type OnModuleInit } from '@nestjs/common';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { McpCatalog } from 'nest-mcp-host';
import { McpModule } from '#libs/hosting';
import { hashApiKey } from '#libs/security';
import { baseUrlOf, connectHttpClient, startTestApp } from './support/fixture-app';

// Several hosts start here: on a busy CI machine that can take longer than jest's 5 s default.
jest.setTimeout(30_000);

/** The labelled catalog of 1,124 tools the ranking is measured on (test/fixtures/tool-search). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const CATALOG = require('./fixtures/tool-search/catalog.json') as Tool[];
const KEYS = { support: 'search-support-key-0123456789', other: 'search-other-key-0123456789' };
/** The Zendesk tools need the `support` scope. */
const isSupportTool = (name: string) => name.startsWith('zendesk');

@Injectable()
class LargeCatalog implements OnModuleInit {
  constructor(private readonly catalog: McpCatalog) {}

  onModuleInit(): void {
    for (const tool of CATALOG)
      this.catalog.addTool(
        { name: tool.name, description: tool.description!, input: tool.inputSchema as Record<string, unknown> },
        (args: Record<string, unknown>) => ({ ran: tool.name, args }),
        { scopes: isSupportTool(tool.name) ? ['support'] : [] },
      );
  }
}

const search = async (client: Client, query: string, limit?: number) => {
  const result = (await client.callTool({
    name: 'search_tools',
    arguments: { query, ...(limit && { limit }) },
  })) as CallToolResult;
  return (result.structuredContent as { tools: { name: string; inputSchema: unknown }[] }).tools;
};

describe('tool search over a catalog of 1,124 tools (toolSearch option)', () => {
  let app: INestApplication;
  let support: Client;
  let other: Client;

  beforeAll(async () => {
    app = await startTestApp({
      imports: [
        McpModule.forRoot({
          name: 'large',
          version: '1.0.0',
          toolSearch: { limit: 5 },
          auth: {
            mode: 'apiKey',
            keys: [
              { hash: hashApiKey(KEYS.support), principal: 'agent', scopes: ['support'] },
              { hash: hashApiKey(KEYS.other), principal: 'intern', scopes: [] },
            ],
          },
        }),
      ],
      providers: [LargeCatalog],
    });
    const url = `${await baseUrlOf(app)}/mcp`;
    support = await connectHttpClient(url, { 'x-api-key': KEYS.support });
    other = await connectHttpClient(url, { 'x-api-key': KEYS.other });
  });
  afterAll(async () => {
    await support?.close();
    await other?.close();
    await app?.close();
  });

  it('lists the two meta-tools beside the catalog', async () => {
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await support.listTools(cursor ? { cursor } : {});
      names.push(...page.tools.map((tool) => tool.name));
      cursor = page.nextCursor;
    } while (cursor);
    expect(names).toHaveLength(CATALOG.length + 2);
    expect(names).toEqual(expect.arrayContaining(['search_tools', 'call_tool']));
  });

  it('finds the tool a request describes, with what is needed to call it', async () => {
    const found = await search(support, 'comment on a case from Zendesk');
    expect(found).toHaveLength(5);
    expect(found.map(({ name }) => name)).toContain('zendesk_add_comment_ticket');
    expect(found[0].inputSchema).toMatchObject({ type: 'object' });
  });

  it('never returns a tool the caller may not use, and still fills the results from those it may', async () => {
    const found = await search(other, 'comment on a case from Zendesk', 8);
    expect(found).toHaveLength(8);
    expect(found.filter(({ name }) => isSupportTool(name))).toEqual([]);
  });

  it('calls the chosen tool as the caller, through its own authorization', async () => {
    const ran = (await support.callTool({
      name: 'call_tool',
      arguments: { name: 'zendesk_add_comment_ticket', arguments: { ticket_id: 'T-1', body: 'hello' } },
    })) as CallToolResult;
    expect(ran.isError).toBeFalsy();
    expect(ran.structuredContent).toMatchObject({ ran: 'zendesk_add_comment_ticket' });

    const refused = (await other.callTool({
      name: 'call_tool',
      arguments: { name: 'zendesk_add_comment_ticket', arguments: { ticket_id: 'T-1', body: 'hello' } },
    })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect((refused.content[0] as { text: string }).text).toMatch(/zendesk_add_comment_ticket.*Use search_tools/s);
  });
});

describe('tool search listing only its meta-tools (toolSearch.listOnly)', () => {
  let app: INestApplication;
  let client: Client;

  beforeAll(async () => {
    app = await startTestApp({
      imports: [McpModule.forRoot({ name: 'search-only', version: '1.0.0', toolSearch: { listOnly: true } })],
      providers: [LargeCatalog],
    });
    client = await connectHttpClient(`${await baseUrlOf(app)}/mcp`);
  });
  afterAll(async () => {
    await client?.close();
    await app?.close();
  });

  it('lists the two meta-tools alone, finds the others through search and calls them', async () => {
    const { tools, nextCursor } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['search_tools', 'call_tool']);
    expect(nextCursor).toBeUndefined();
    // No credentials here: the Zendesk tools (scope support) stay out of the results too.
    const found = await search(client, 'comment on a GitHub pull request');
    expect(found.map(({ name }) => name)).toContain('github__comment_pull_request');
    expect(found.filter(({ name }) => isSupportTool(name))).toEqual([]);
    const ran = (await client.callTool({
      name: 'call_tool',
      arguments: { name: 'github__comment_pull_request', arguments: { pull_request_id: 'PR-7', body: 'LGTM' } },
    })) as CallToolResult;
    expect(ran.structuredContent).toMatchObject({ ran: 'github__comment_pull_request' });
    // Unlisted is not uncallable: a client that knows the name may still call it.
    const direct = (await client.callTool({
      name: 'github__comment_pull_request',
      arguments: { pull_request_id: 'PR-7' },
    })) as CallToolResult;
    expect(direct.structuredContent).toMatchObject({ ran: 'github__comment_pull_request' });
  });
});
