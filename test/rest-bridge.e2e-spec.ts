import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { auditRecords, DESK_KEYS, startDeskHost, type DeskHost } from './support/desk-host';
import { PLATFORMS } from './support/fixture-app';

const READ_ROUTES = ['getCustomer', 'getTicket', 'listCustomers', 'listTickets'];
/** Reading routes that need a scope the read-only key lacks (`reports`). */
const REPORT_ROUTES = ['exportTicketReport'];
const WRITE_ROUTES = ['closeTicket', 'createTicket', 'deleteTicket', 'updateTicket'];
const NEW_TICKET = {
  customerId: 'C-1002',
  subject: 'Invoices show the wrong VAT rate',
  description: 'Every invoice since the 1st shows 19 % instead of 20 %.',
  priority: 'high',
};

/** An SDK v1 client of the desk with an API key (and a form handler, when given). */
async function mcpClient(
  desk: DeskHost,
  key: string,
  elicit?: (message: string) => { action: 'accept' | 'decline'; content?: Record<string, unknown> },
): Promise<Client> {
  const client = new Client(
    { name: 'rest-bridge-e2e', version: '1.0.0' },
    elicit ? { capabilities: { elicitation: { form: {} } } } : {},
  );
  if (elicit) client.setRequestHandler(ElicitRequestSchema, async (request) => elicit(request.params.message));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(desk.url), { requestInit: { headers: { 'X-API-Key': key } } }),
  );
  return client;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies, compared whole or field by field
type JsonBody = any;

async function rest(
  desk: DeskHost,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: JsonBody }> {
  const response = await fetch(`${desk.base}${path}`, {
    method,
    headers: { 'x-api-key': DESK_KEYS.admin, ...(body !== undefined && { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const call = (client: Client, name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const restTools = (tools: Tool[]) =>
  tools
    .filter((tool) => tool._meta?.['nest-mcp-host/rest'])
    .map((tool) => tool.name)
    .sort();

describe.each(PLATFORMS)('the REST bridge on the support desk (%s)', (platform) => {
  let desk: DeskHost;
  let admin: Client;
  let reader: Client;

  beforeAll(async () => {
    desk = await startDeskHost(
      { AUTH_MODE: 'apiKey', MCP_API_KEYS_FILE: 'config/api-keys.example.json', THROTTLE_LIMIT: '10000' },
      platform,
    );
    admin = await mcpClient(desk, DESK_KEYS.admin);
    reader = await mcpClient(desk, DESK_KEYS.reader);
  });
  afterAll(async () => {
    await admin?.close();
    await reader?.close();
    await desk?.close();
  });

  it('lists each chosen route as a tool named by its operationId, described by its Swagger metadata', async () => {
    const { tools } = await admin.listTools();
    expect(restTools(tools)).toEqual([...READ_ROUTES, ...REPORT_ROUTES, ...WRITE_ROUTES].sort());
    const getTicket = tools.find((tool) => tool.name === 'getTicket')!;
    expect(getTicket.description).toContain('Get a ticket');
    expect(getTicket.annotations).toMatchObject({ readOnlyHint: true });
    expect(getTicket.inputSchema).toMatchObject({
      required: ['ticketId'],
      properties: { ticketId: { type: 'string' } },
    });
    expect(getTicket.outputSchema).toMatchObject({ type: 'object' });
    expect(getTicket._meta?.['nest-mcp-host/rest']).toMatchObject({
      method: 'GET',
      path: '/api/tickets/{ticketId}',
      operationId: 'getTicket',
      tags: ['tickets'],
    });
    const deleteTicket = tools.find((tool) => tool.name === 'deleteTicket')!;
    expect(deleteTicket.annotations).toMatchObject({ destructiveHint: true });
    // Marked destructive on its operation (x-mcp-annotations), as the close_ticket tool is.
    expect(tools.find((tool) => tool.name === 'closeTicket')!.annotations).toMatchObject({ destructiveHint: true });
    // The body DTO's properties and the path parameter make one flat input.
    const closeTicket = tools.find((tool) => tool.name === 'closeTicket')!;
    expect(Object.keys(closeTicket.inputSchema.properties ?? {}).sort()).toEqual(['resolution', 'ticketId']);
  });

  it('gives the same data over REST and over MCP', async () => {
    const overRest = await rest(desk, 'GET', '/api/tickets/T-2001');
    const overMcp = await call(admin, 'getTicket', { ticketId: 'T-2001' });
    expect(overRest.status).toBe(200);
    expect(overMcp.isError).toBeFalsy();
    expect(overMcp.structuredContent).toEqual(overRest.body);
    expect(JSON.parse((overMcp.content[0] as { text: string }).text)).toEqual(overRest.body);

    const listed = await call(admin, 'listCustomers', { query: 'contoso', limit: 5 });
    expect(listed.structuredContent).toEqual((await rest(desk, 'GET', '/api/customers?query=contoso&limit=5')).body);
  });

  it('creates through MCP what REST then reads', async () => {
    const created = await call(admin, 'createTicket', NEW_TICKET);
    expect(created.isError).toBeFalsy();
    const id = (created.structuredContent as { id: string }).id;
    expect((await rest(desk, 'GET', `/api/tickets/${id}`)).body).toMatchObject({ ...NEW_TICKET, status: 'open' });
  });

  it('answers arguments the route refuses with an isError result naming each field, audited as invalid', async () => {
    const refused = await call(admin, 'createTicket', { customerId: 'C-1002', subject: 'abc', priority: 'someday' });
    expect(refused.isError).toBe(true);
    const text = (refused.content[0] as { text: string }).text;
    for (const field of ['subject', 'description', 'priority']) expect(text).toContain(field);
    const [record] = await auditRecords(
      desk.auditFile,
      (r) => r.target === 'createTicket' && (r.arguments as { subject?: string })?.subject === 'abc',
    );
    expect(record).toMatchObject({ outcome: 'invalid', route: 'POST /api/tickets' });
  });

  it("returns the route's exception filter's answer: 404 TicketNotFound as an isError result", async () => {
    const missing = await call(admin, 'getTicket', { ticketId: 'T-99999' });
    expect(missing.isError).toBe(true);
    expect((missing.content[0] as { text: string }).text).toContain('No ticket T-99999');
    expect(missing._meta?.['nest-mcp-host/rest']).toMatchObject({ status: 404 });
    const closed = await call(admin, 'updateTicket', { ticketId: 'T-2004', subject: 'Reopen this one please' });
    // T-2004 is closed in the seed data: the filter maps TicketClosed to 409.
    expect(closed.isError).toBe(true);
    expect(closed._meta?.['nest-mcp-host/rest']).toMatchObject({ status: 409 });
  });

  it('neither lists nor calls write routes for the read-only key', async () => {
    const { tools } = await reader.listTools();
    expect(restTools(tools)).toEqual(READ_ROUTES);
    await expect(call(reader, 'createTicket', NEW_TICKET)).rejects.toThrow(/Unknown tool: createTicket/);
    const read = await call(reader, 'getCustomer', { customerId: 'C-1001' });
    expect(read.isError).toBeFalsy();
  });

  it('asks for confirmation before the destructive DELETE route runs', async () => {
    const { id } = (await rest(desk, 'POST', '/api/tickets', NEW_TICKET)).body as { id: string };
    const asked: string[] = [];
    const declining = await mcpClient(desk, DESK_KEYS.admin, (message) => (asked.push(message), { action: 'decline' }));
    try {
      const declined = await call(declining, 'deleteTicket', { ticketId: id });
      expect(asked).toHaveLength(1);
      expect(declined.isError).toBe(true);
      expect((await rest(desk, 'GET', `/api/tickets/${id}`)).status).toBe(200);
    } finally {
      await declining.close();
    }
    const accepting = await mcpClient(desk, DESK_KEYS.admin, () => ({ action: 'accept', content: { confirm: true } }));
    try {
      const deleted = await call(accepting, 'deleteTicket', { ticketId: id });
      expect(deleted.isError).toBeFalsy();
      expect((await rest(desk, 'GET', `/api/tickets/${id}`)).status).toBe(404);
    } finally {
      await accepting.close();
    }
  });

  describe('closeTicket, the same action as the close_ticket tool, held for the same confirmation', () => {
    const RESOLUTION = 'Re-issued every invoice with 20 % VAT.';
    const openTicket = async () => ((await rest(desk, 'POST', '/api/tickets', NEW_TICKET)).body as { id: string }).id;
    const statusOf = async (id: string) =>
      ((await rest(desk, 'GET', `/api/tickets/${id}`)).body as { status: string }).status;

    it('asks a client that can show a form once, and closes the ticket once when the user confirms', async () => {
      const [viaRoute, viaTool] = [await openTicket(), await openTicket()];
      const asked: string[] = [];
      const accepting = await mcpClient(
        desk,
        DESK_KEYS.admin,
        (message) => (asked.push(message), { action: 'accept', content: { confirm: true } }),
      );
      try {
        const closed = await call(accepting, 'closeTicket', { ticketId: viaRoute, resolution: RESOLUTION });
        expect(closed.isError).toBeFalsy();
        expect(closed.structuredContent).toMatchObject({ id: viaRoute, status: 'closed', resolution: RESOLUTION });
        expect(asked).toEqual([
          `Allow "Close a ticket" to run with ${JSON.stringify({ ticketId: viaRoute, resolution: RESOLUTION })}?`,
        ]);
        // The MCP tool asks the same way.
        await call(accepting, 'close_ticket', { ticketId: viaTool, resolution: RESOLUTION });
        expect(asked).toHaveLength(2);
        expect([await statusOf(viaRoute), await statusOf(viaTool)]).toEqual(['closed', 'closed']);
        const records = await auditRecords(
          desk.auditFile,
          (r) => r.target === 'closeTicket' && (r.arguments as { ticketId?: string })?.ticketId === viaRoute,
        );
        expect(records.map((r) => [r.outcome, r.route])).toEqual([['ok', 'POST /api/tickets/{ticketId}/close']]);
      } finally {
        await accepting.close();
      }
    });

    it('leaves the ticket open when the user declines', async () => {
      const id = await openTicket();
      const declining = await mcpClient(desk, DESK_KEYS.admin, () => ({ action: 'decline' }));
      try {
        const declined = await call(declining, 'closeTicket', { ticketId: id, resolution: RESOLUTION });
        expect(declined.isError).toBe(true);
        expect((declined.content[0] as { text: string }).text).toBe(
          'The user did not confirm "closeTicket" (decline); it was not run. Do not retry without asking the user.',
        );
        expect(await statusOf(id)).toBe('open');
      } finally {
        await declining.close();
      }
    });

    it('holds the call of a client without forms as an approval request, and closes once it is approved', async () => {
      const id = await openTicket();
      const args = { ticketId: id, resolution: RESOLUTION };
      const first = await call(admin, 'closeTicket', args);
      expect(first.isError).toBe(true);
      expect((first.content[0] as { text: string }).text).toMatch(
        /^"closeTicket" needs a person's approval before it runs, and it was not run\./,
      );
      expect(await statusOf(id)).toBe('open');
      const approver = { 'x-api-key': DESK_KEYS.approver };
      const { approvals } = (await (
        await fetch(`${desk.base}/admin/api/approvals?status=pending`, { headers: approver })
      ).json()) as { approvals: { id: string; tool: string; principal: string; arguments: unknown }[] };
      const pending = approvals.filter((approval) => approval.tool === 'closeTicket');
      expect(pending).toEqual([expect.objectContaining({ principal: 'desk-admin', arguments: args })]);
      const decided = await fetch(`${desk.base}/admin/api/approvals/${pending[0].id}/approve`, {
        method: 'POST',
        headers: { ...approver, 'content-type': 'application/json' },
        body: JSON.stringify({ reason: 'the customer agreed' }),
      });
      expect(decided.status).toBe(200);
      const closed = await call(admin, 'closeTicket', args);
      expect(closed.structuredContent).toMatchObject({ id, status: 'closed' });
      expect(await statusOf(id)).toBe('closed');
    });
  });

  it('names the route in the audit record of a REST-derived call', async () => {
    await call(admin, 'getCustomer', { customerId: 'C-1003' });
    const [record] = await auditRecords(
      desk.auditFile,
      (r) => r.target === 'getCustomer' && (r.arguments as { customerId?: string })?.customerId === 'C-1003',
    );
    expect(record).toMatchObject({
      method: 'tools/call',
      outcome: 'ok',
      principal: 'desk-admin',
      route: 'GET /api/customers/{customerId}',
    });
  });
});

describe('the REST bridge with the desk in read-only mode', () => {
  let desk: DeskHost;
  let admin: Client;

  beforeAll(async () => {
    desk = await startDeskHost({
      AUTH_MODE: 'apiKey',
      MCP_API_KEYS_FILE: 'config/api-keys.example.json',
      SUPPORT_READ_ONLY: 'true',
      THROTTLE_LIMIT: '10000',
    });
    admin = await mcpClient(desk, DESK_KEYS.admin);
  });
  afterAll(async () => {
    await admin?.close();
    await desk?.close();
  });

  it("refuses a write route as the route's guard does, and audits it as denied", async () => {
    const refused = call(admin, 'createTicket', NEW_TICKET).then(
      (result) => (result.isError ? (result.content[0] as { text: string }).text : 'ran'),
      (error: Error) => error.message,
    );
    expect(await refused).toMatch(/read-only/i);
    const [record] = await auditRecords(desk.auditFile, (r) => r.target === 'createTicket');
    expect(record).toMatchObject({ outcome: 'denied', route: 'POST /api/tickets' });
    expect((await call(admin, 'getTicket', { ticketId: 'T-2001' })).isError).toBeFalsy();
  });
});
