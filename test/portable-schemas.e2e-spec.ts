import { Logger } from '@nestjs/common';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { schemaPortabilityIssues } from '#libs/catalog';
import { startDeskHost, type DeskHost } from './support/desk-host';
import { connectHttpClient } from './support/fixture-app';

/** Every place of a schema whose `type` is a list, as a JSON pointer. */
function typeLists(node: unknown, pointer = ''): string[] {
  if (typeof node !== 'object' || node === null) return [];
  if (Array.isArray(node)) return node.flatMap((item, index) => typeLists(item, `${pointer}/${index}`));
  const own = Array.isArray((node as { type?: unknown }).type) ? [pointer] : [];
  return [...own, ...Object.entries(node).flatMap(([key, value]) => typeLists(value, `${pointer}/${key}`))];
}

describe("the support desk's tool schemas (DTOs, zod, REST routes through OpenAPI) as strict clients read them", () => {
  let desk: DeskHost;
  let client: Client;
  let tools: Tool[];
  const warnings: string[] = [];

  beforeAll(async () => {
    jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => void warnings.push(String(message)));
    desk = await startDeskHost();
    client = await connectHttpClient(desk.url);
    tools = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
  });
  afterAll(async () => {
    await client?.close();
    await desk?.close();
    jest.restoreAllMocks();
  });

  it('lists the decorated tools and the REST routes exposed as tools', () => {
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['get_ticket', 'search_tickets', 'close_ticket']));
    expect(names).toEqual(
      expect.arrayContaining(['listTickets', 'getTicket', 'createTicket', 'updateTicket', 'closeTicket']),
    );
  });

  it('has no `type` list anywhere in any input or output schema', () => {
    const found = tools.flatMap((tool) => [
      ...typeLists(tool.inputSchema).map((pointer) => `${tool.name} inputSchema#${pointer}`),
      ...typeLists(tool.outputSchema).map((pointer) => `${tool.name} outputSchema#${pointer}`),
    ]);
    expect(found).toEqual([]);
  });

  it('spells a nullable field anyOf [X, null], an optional one simply not required', () => {
    const getTicket = tools.find((tool) => tool.name === 'get_ticket')!;
    const output = getTicket.outputSchema as { properties: Record<string, unknown>; required: string[] };
    expect(output.properties.assignee).toEqual({
      description: 'The agent login working the ticket; null while unassigned.',
      anyOf: [{ type: 'string' }, { type: 'null' }],
    });
    const update = tools.find((tool) => tool.name === 'updateTicket')!;
    const input = update.inputSchema as { properties: Record<string, { anyOf?: unknown[] }>; required?: string[] };
    expect(input.properties.assignee.anyOf).toEqual(expect.arrayContaining([{ type: 'null' }]));
    expect(input.required ?? []).not.toContain('assignee');
  });

  it('leaves nothing a strict subset would refuse, and says so at start-up by saying nothing', () => {
    const issues = tools.flatMap((tool) =>
      [
        ...schemaPortabilityIssues(tool.inputSchema),
        ...(tool.outputSchema ? schemaPortabilityIssues(tool.outputSchema) : []),
      ].map(({ pointer, problem }) => `${tool.name}#${pointer}: ${problem}`),
    );
    expect(issues).toEqual([]);
    expect(warnings.filter((warning) => warning.includes('strict clients'))).toEqual([]);
  });

  it('still answers with structured content the client checks against the new output schema', async () => {
    const result = await client.callTool({ name: 'get_ticket', arguments: { ticketId: 'T-2001' } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ id: 'T-2001' });
    expect((result.structuredContent as { resolution: unknown }).resolution).toBeNull();
  });
});
