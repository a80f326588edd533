import { DESK_KEYS, DESK_REST_TOOLS, startDeskHost, type DeskHost } from './support/desk-host';

interface Answer {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON bodies, asserted field by field
}

/** One request to the desk over real HTTP, as any REST client makes it. */
async function call(
  base: string,
  method: string,
  path: string,
  { key, bearer, body }: { key?: string; bearer?: string; body?: unknown } = {},
): Promise<Answer> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...(key && { 'x-api-key': key }),
      ...(bearer && { authorization: `Bearer ${bearer}` }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

const NEW_TICKET = {
  customerId: 'C-1002',
  subject: 'Export to CSV drops accents',
  description: 'Since Monday every exported name loses its accents (é becomes e).',
  priority: 'normal',
};

describe('support desk REST API with API keys', () => {
  let desk: DeskHost;
  const admin = (method: string, path: string, body?: unknown) =>
    call(desk.base, method, path, { key: DESK_KEYS.admin, body });

  beforeAll(async () => {
    desk = await startDeskHost({
      AUTH_MODE: 'apiKey',
      MCP_API_KEYS_FILE: 'config/api-keys.example.json',
      THROTTLE_LIMIT: '10000',
    });
  });
  afterAll(() => desk.close());

  it('lists tickets with filters from the query string', async () => {
    const open = await call(desk.base, 'GET', '/api/tickets?status=open&limit=2', { key: DESK_KEYS.reader });
    expect(open.status).toBe(200);
    expect(open.body.count).toBe(2);
    expect(open.body.tickets).toHaveLength(2);
    for (const ticket of open.body.tickets) {
      expect(Object.keys(ticket).sort()).toEqual(['assignee', 'customerId', 'id', 'priority', 'status', 'subject']);
      expect(ticket.status).toBe('open');
    }
    const unassigned = await admin('GET', '/api/tickets?unassigned=true&limit=100');
    expect(unassigned.body.count).toBeGreaterThan(0);
    expect(unassigned.body.tickets.every((t: { assignee: unknown }) => t.assignee === null)).toBe(true);
    const assigned = await admin('GET', '/api/tickets?unassigned=false&limit=100');
    expect(assigned.body.count).toBeGreaterThan(0);
    expect(assigned.body.tickets.every((t: { assignee: unknown }) => typeof t.assignee === 'string')).toBe(true);
    const ofCustomer = await admin('GET', '/api/tickets?customerId=C-1002&priority=high');
    expect(ofCustomer.body.tickets.every((t: { customerId: string }) => t.customerId === 'C-1002')).toBe(true);
    expect(ofCustomer.body.tickets.every((t: { priority: string }) => t.priority === 'high')).toBe(true);
  });

  it('runs a ticket through its life: create, get, assign, close, delete', async () => {
    const created = await admin('POST', '/api/tickets', NEW_TICKET);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      ...NEW_TICKET,
      status: 'open',
      assignee: null,
      resolution: null,
      comments: [],
    });
    const id = created.body.id as string;
    expect(id).toMatch(/^T-\d{4,}$/);
    expect(await admin('GET', `/api/tickets/${id}`)).toMatchObject({ status: 200, body: created.body });

    const assigned = await admin('PATCH', `/api/tickets/${id}`, { assignee: 'maria.lopez', status: 'pending' });
    expect(assigned.status).toBe(200);
    expect(assigned.body).toMatchObject({ id, assignee: 'maria.lopez', status: 'pending', priority: 'normal' });
    const unassigned = await admin('PATCH', `/api/tickets/${id}`, { assignee: null, priority: 'high' });
    expect(unassigned.body).toMatchObject({ id, assignee: null, status: 'pending', priority: 'high' });

    const closed = await admin('POST', `/api/tickets/${id}/close`, {
      resolution: 'Fixed the CSV encoding (UTF-8 BOM).',
    });
    expect(closed.status).toBe(200);
    expect(closed.body).toMatchObject({ id, status: 'closed', resolution: 'Fixed the CSV encoding (UTF-8 BOM).' });

    const deleted = await admin('DELETE', `/api/tickets/${id}`);
    expect(deleted).toMatchObject({ status: 200, body: { id, deleted: true } });
    expect((await admin('GET', `/api/tickets/${id}`)).status).toBe(404);
    expect((await admin('GET', '/api/tickets?limit=100')).body.tickets.map((t: { id: string }) => t.id)).not.toContain(
      id,
    );
  });

  it('answers the desk rules through its filter: 404 for an unknown ticket or customer, 409 for a closed ticket', async () => {
    expect(await admin('GET', '/api/tickets/T-9999')).toMatchObject({
      status: 404,
      body: { statusCode: 404, error: 'TicketNotFound', message: 'No ticket T-9999.', ticketId: 'T-9999' },
    });
    expect((await admin('DELETE', '/api/tickets/T-9999')).body).toEqual({
      statusCode: 404,
      error: 'TicketNotFound',
      message: 'No ticket T-9999.',
      ticketId: 'T-9999',
    });
    expect((await admin('POST', '/api/tickets', { ...NEW_TICKET, customerId: 'C-9999' })).body).toEqual({
      statusCode: 404,
      error: 'CustomerNotFound',
      message: 'No customer C-9999.',
      customerId: 'C-9999',
    });
    const { id } = (await admin('POST', '/api/tickets', NEW_TICKET)).body as { id: string };
    await admin('POST', `/api/tickets/${id}/close`, { resolution: 'Answered by email.' });
    const again = await admin('POST', `/api/tickets/${id}/close`, { resolution: 'Answered by email.' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      statusCode: 409,
      error: 'TicketClosed',
      message: `Ticket ${id} is closed and cannot be closed again; open a new ticket instead.`,
      ticketId: id,
    });
    expect((await admin('PATCH', `/api/tickets/${id}`, { priority: 'low' })).body).toEqual({
      statusCode: 409,
      error: 'TicketClosed',
      message: `Ticket ${id} is closed and cannot be changed; open a new ticket instead.`,
      ticketId: id,
    });
  });

  it('refuses input that fails validation with 400 and one message per failing field', async () => {
    const body = await admin('POST', '/api/tickets', {
      customerId: 'acme',
      subject: 'Hi',
      description: 42,
      priority: 'asap',
      id: 'T-2001',
    });
    expect(body.status).toBe(400);
    expect(body.body.error).toBe('Bad Request');
    expect([...body.body.message].sort()).toEqual([
      'customerId must look like C-1001',
      'description must be a string',
      'priority must be one of the following values: low, normal, high, urgent',
      'property id should not exist',
      'subject must be longer than or equal to 5 characters',
    ]);
    const query = await admin('GET', '/api/tickets?status=solved&unassigned=maybe&limit=many');
    expect(query.status).toBe(400);
    expect([...query.body.message].sort()).toEqual([
      'limit must be an integer number',
      'status must be one of the following values: open, pending, closed',
      'unassigned must be a boolean value',
    ]);
    expect((await admin('GET', '/api/tickets?limit=500')).body.message).toEqual(['limit must not be greater than 100']);
    expect((await admin('GET', '/api/tickets/2001')).body).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: ['ticketId must look like T-2001'],
    });
    expect((await admin('PATCH', '/api/tickets/T-2001', { status: 'closed' })).body.message).toEqual([
      'status must be one of the following values: open, pending',
    ]);
    expect((await admin('POST', '/api/tickets/T-2001/close', {})).body.message).toEqual([
      'resolution must be a string',
    ]);
  });

  it('answers 401 without a valid key and 403 to a key that lacks the scope (the read-only key writes nothing)', async () => {
    const none = await call(desk.base, 'GET', '/api/tickets');
    expect(none.status).toBe(401);
    expect(none.body).toEqual({
      statusCode: 401,
      error: 'Unauthorized',
      message: 'No API key: send Authorization: Bearer <key> or X-API-Key: <key>',
    });
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="desk-api"');
    const bad = await call(desk.base, 'GET', '/api/customers', { bearer: 'not-a-desk-key' });
    expect(bad).toMatchObject({ status: 401, body: { message: 'The API key is not valid' } });
    expect(bad.headers.get('www-authenticate')).toBe('Bearer realm="desk-api", error="invalid_token"');

    const reader = { key: DESK_KEYS.reader };
    expect((await call(desk.base, 'GET', '/api/tickets/T-2001', reader)).status).toBe(200);
    expect((await call(desk.base, 'GET', '/api/tickets/T-2001', { bearer: DESK_KEYS.reader })).status).toBe(200);
    const forbidden = {
      statusCode: 403,
      error: 'Forbidden',
      message: 'desk-reader may not use this route: it needs the scope(s) tickets:write',
    };
    expect(await call(desk.base, 'POST', '/api/tickets', { ...reader, body: NEW_TICKET })).toMatchObject({
      status: 403,
      body: forbidden,
    });
    expect(
      (await call(desk.base, 'PATCH', '/api/tickets/T-2001', { ...reader, body: { priority: 'low' } })).body,
    ).toEqual(forbidden);
    expect((await call(desk.base, 'DELETE', '/api/tickets/T-2001', reader)).body).toEqual(forbidden);
    expect((await admin('GET', '/api/tickets/T-2001')).body.priority).not.toBe('low');
  });

  it('lists and gets customers', async () => {
    expect((await admin('GET', '/api/customers?query=contoso')).body).toEqual({
      customers: [{ id: 'C-1002', name: 'Bruno Costa', company: 'Contoso Ltd', tier: 'premium' }],
      count: 1,
    });
    expect((await admin('GET', '/api/customers?limit=2')).body.count).toBe(2);
    const customer = await admin('GET', '/api/customers/C-1002');
    expect(customer.status).toBe(200);
    expect(customer.body).toMatchObject({ id: 'C-1002', company: 'Contoso Ltd', openTickets: expect.any(Number) });
    expect((await admin('GET', '/api/customers/C-9999')).status).toBe(404);
  });

  it('reports tickets as export_ticket_report does, to a key with the reports scope', async () => {
    const report = await admin('GET', '/api/reports/tickets?status=open&columns=id,priority');
    expect(report.status).toBe(200);
    expect(report.body).toMatchObject({ count: 12, summary: '12 open' });
    expect(report.body.csv.split('\n').slice(0, 2)).toEqual(['id,priority', 'T-2001,normal']);
    const refused = await call(desk.base, 'GET', '/api/reports/tickets', { key: DESK_KEYS.reader });
    expect(refused.status).toBe(403);
    const invalid = await admin('GET', '/api/reports/tickets?columns=id,colour');
    expect(invalid.status).toBe(400);
    expect(JSON.stringify(invalid.body)).toMatch(/columns/);
  });

  it('documents every route in /docs-json, and nothing but the REST API', async () => {
    const { status, body: document } = await call(desk.base, 'GET', '/docs-json');
    expect(status).toBe(200);
    const operations = Object.values(document.paths as Record<string, Record<string, { operationId: string }>>)
      .flatMap((methods) => Object.values(methods))
      .map((operation) => operation.operationId)
      .sort();
    // The operationIds are the names of the tools the REST bridge makes of them.
    expect(operations).toEqual(DESK_REST_TOOLS);
    expect(Object.keys(document.paths).sort()).toEqual([
      '/api/customers',
      '/api/customers/{customerId}',
      '/api/reports/tickets',
      '/api/tickets',
      '/api/tickets/{ticketId}',
      '/api/tickets/{ticketId}/close',
    ]);
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['api-key', 'bearer']);
    expect(document.components.securitySchemes['api-key']).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(document.components.schemas).toMatchObject({
      CreateTicketDto: {
        required: ['customerId', 'subject', 'description', 'priority'],
        properties: { subject: { type: 'string', minLength: 5, maxLength: 120 } },
      },
      UpdateTicketBody: { properties: { assignee: { type: 'string', nullable: true } } },
      CloseTicketBody: { required: ['resolution'] },
      TicketResponse: { properties: { comments: { type: 'array' } } },
      TicketListResponse: { properties: { count: { type: 'integer' } } },
      DeskErrorResponse: { properties: { error: { type: 'string' } } },
    });
    const create = document.paths['/api/tickets'].post;
    expect(create.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/CreateTicketDto',
    });
    expect(create.responses['201'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/TicketResponse',
    });
    expect(create.security).toEqual([{ 'api-key': [] }, { bearer: [] }]);
    const listParameters = document.paths['/api/tickets'].get.parameters as { name: string; in: string }[];
    expect(listParameters.map((p) => `${p.in}:${p.name}`).sort()).toEqual(
      ['assignee', 'customerId', 'limit', 'priority', 'status', 'text', 'unassigned'].map((name) => `query:${name}`),
    );
    const ui = await fetch(`${desk.base}/docs`);
    expect(ui.status).toBe(200);
    expect(await ui.text()).toContain('swagger-ui');
  });
});

describe('support desk REST API with authentication off', () => {
  let desk: DeskHost;
  beforeAll(async () => {
    desk = await startDeskHost({ AUTH_MODE: 'none' });
  });
  afterAll(() => desk.close());

  it('serves every route to the local operator without a key', async () => {
    expect((await call(desk.base, 'GET', '/api/tickets/T-2001')).status).toBe(200);
    const created = await call(desk.base, 'POST', '/api/tickets', { body: NEW_TICKET });
    expect(created.status).toBe(201);
    expect((await call(desk.base, 'DELETE', `/api/tickets/${created.body.id}`)).status).toBe(200);
  });
});

describe('support desk REST API in read-only mode', () => {
  let desk: DeskHost;
  beforeAll(async () => {
    desk = await startDeskHost({ AUTH_MODE: 'none', SUPPORT_READ_ONLY: 'true' });
  });
  afterAll(() => desk.close());

  it('serves GET routes and refuses every write, as the MCP tools are refused', async () => {
    expect((await call(desk.base, 'GET', '/api/tickets/T-2001')).status).toBe(200);
    const refused = {
      status: 403,
      body: {
        statusCode: 403,
        error: 'Forbidden',
        message: 'The support desk is in read-only mode: only GET routes of its REST API can be used right now.',
      },
    };
    expect(await call(desk.base, 'POST', '/api/tickets', { body: NEW_TICKET })).toMatchObject(refused);
    expect(await call(desk.base, 'DELETE', '/api/tickets/T-2001')).toMatchObject(refused);
    expect((await call(desk.base, 'GET', '/api/tickets/T-2001')).status).toBe(200);
  });
});
