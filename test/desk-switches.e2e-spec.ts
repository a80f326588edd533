import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DESK_HTTP_TOOLS, startDeskHost, type DeskHost } from './support/desk-host';
import { connectHttpClient } from './support/fixture-app';
import { PETSTORE_DOCUMENT_FILE, PETSTORE_TOKEN, startPetstoreStub, type PetstoreStub } from './support/petstore-stub';

// Two desks and a stub API start here.
jest.setTimeout(30_000);

const PET_TOOLS = ['petstore_addPet', 'petstore_findPetsByStatus', 'petstore_getPetById'];

/** What `search_tools` found for `query`, by name. */
async function search(client: Client, query: string): Promise<string[]> {
  const result = (await client.callTool({ name: 'search_tools', arguments: { query } })) as CallToolResult;
  return (result.structuredContent as { tools: { name: string }[] }).tools.map(({ name }) => name);
}

describe('the desk started with MCP_TOOL_SEARCH=on and a REST_APIS_FILE', () => {
  let stub: PetstoreStub;
  let desk: DeskHost;
  let client: Client;
  const dir = mkdtempSync(join(tmpdir(), 'desk-switches-'));

  beforeAll(async () => {
    stub = await startPetstoreStub();
    // As a newcomer writes it: the API's secret comes from the environment, not the file.
    const file = join(dir, 'rest-apis.json');
    writeFileSync(
      file,
      JSON.stringify({
        apis: [
          {
            name: 'petstore',
            document: PETSTORE_DOCUMENT_FILE,
            baseUrl: stub.baseUrl,
            credentials: { bearer: '${PETSTORE_TOKEN}' },
            operations: { operationIds: ['getPetById', 'findPetsByStatus', 'addPet'] },
            prefix: 'petstore_',
            scopes: ['tickets:read'],
            confirm: { ask: { operationIds: ['addPet'] } },
          },
        ],
      }),
    );
    desk = await startDeskHost({ MCP_TOOL_SEARCH: 'on', REST_APIS_FILE: file, PETSTORE_TOKEN });
    client = await connectHttpClient(desk.url);
  });
  afterAll(async () => {
    await client?.close();
    await desk?.close();
    await stub?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("lists the search meta-tools and the API's operations beside the desk's own tools", async () => {
    const { tools } = await client.listTools();
    expect(tools.map(({ name }) => name).sort()).toEqual(
      [...DESK_HTTP_TOOLS, ...PET_TOOLS, 'search_tools', 'call_tool'].sort(),
    );
    const addPet = tools.find(({ name }) => name === 'petstore_addPet')!;
    expect(addPet._meta?.['nest-mcp-host/rest']).toMatchObject({ api: 'petstore', method: 'POST', path: '/pet' });
  });

  it('finds an imported operation by what it does, and calls it against the API with the configured credentials', async () => {
    expect(await search(client, 'find a pet by its id')).toContain('petstore_getPetById');
    const before = stub.requests.length;
    const called = (await client.callTool({
      name: 'call_tool',
      arguments: { name: 'petstore_getPetById', arguments: { petId: 1 } },
    })) as CallToolResult;
    expect(called.isError).toBeFalsy();
    expect(called.structuredContent).toEqual({
      id: 1,
      name: 'Rex',
      photoUrls: ['https://example.com/rex.jpg'],
      status: 'available',
    });
    const [request] = stub.requests.slice(before);
    expect(request).toMatchObject({ method: 'GET', url: '/api/v3/pet/1' });
    expect(request.headers.authorization).toBe(`Bearer ${PETSTORE_TOKEN}`);
  });

  it("holds the API's write its file says to confirm, as the desk holds close_ticket", async () => {
    const before = stub.requests.length;
    const held = (await client.callTool({
      name: 'petstore_addPet',
      arguments: { id: 90, name: 'Kiwi', photoUrls: [] },
    })) as CallToolResult;
    expect(held.isError).toBe(true);
    expect((held.content[0] as { text: string }).text).toMatch(
      /^"petstore_addPet" needs a person's approval before it runs, and it was not run\./,
    );
    expect(stub.requests.length).toBe(before);
  });
});

describe('the desk started with MCP_TOOL_SEARCH=list-only', () => {
  let desk: DeskHost;
  let client: Client;

  beforeAll(async () => {
    desk = await startDeskHost({ MCP_TOOL_SEARCH: 'list-only' });
    client = await connectHttpClient(desk.url);
  });
  afterAll(async () => {
    await client?.close();
    await desk?.close();
  });

  it('lists only search_tools and call_tool, and finds and calls the desk tools through them', async () => {
    expect((await client.listTools()).tools.map(({ name }) => name)).toEqual(['search_tools', 'call_tool']);
    expect(await search(client, 'look up a support ticket by id')).toContain('get_ticket');
    const found = (await client.callTool({
      name: 'call_tool',
      arguments: { name: 'get_ticket', arguments: { ticketId: 'T-2001' } },
    })) as CallToolResult;
    expect(found.structuredContent).toMatchObject({ id: 'T-2001' });
  });
});
