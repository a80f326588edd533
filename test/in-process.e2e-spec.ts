import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { McpInvocationError, McpInvoker } from '#libs/hosting';
import { auditRecords, DESK_KEYS, DESK_HTTP_TOOLS, startDeskHost, type DeskHost } from './support/desk-host';
import { connectHttpClient } from './support/fixture-app';

const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

/** What a promise rejected with (fails when it resolved). */
async function rejectionOf(promise: Promise<unknown>): Promise<McpInvocationError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof McpInvocationError)) throw new Error(`expected an McpInvocationError, got ${String(error)}`);
  return error;
}

describe('McpInvoker: the in-process invocation API, on the support desk', () => {
  let desk: DeskHost;
  let invoker: McpInvoker;
  let admin: Client;
  let reader: Client;
  const admitted = { credential: DESK_KEYS.admin };

  beforeAll(async () => {
    desk = await startDeskHost({ AUTH_MODE: 'apiKey', SUPPORT_REPORT_STEP_MS: '200' });
    invoker = desk.app.get(McpInvoker);
    admin = await connectHttpClient(desk.url, { authorization: `Bearer ${DESK_KEYS.admin}` });
    reader = await connectHttpClient(desk.url, { authorization: `Bearer ${DESK_KEYS.reader}` });
  });
  afterAll(async () => {
    await admin.close();
    await reader.close();
    await desk.close();
  });

  it('answers exactly as MCP does for the same caller: lists, tools, prompts, resources and templates', async () => {
    expect(await invoker.listTools(admitted)).toEqual((await admin.listTools()).tools);
    expect((await invoker.listTools(admitted)).map((tool) => tool.name).sort()).toEqual(DESK_HTTP_TOOLS);
    expect(await invoker.listPrompts(admitted)).toEqual((await admin.listPrompts()).prompts);
    expect(await invoker.listResources(admitted)).toEqual((await admin.listResources()).resources);
    expect(await invoker.listResourceTemplates(admitted)).toEqual(
      (await admin.listResourceTemplates()).resourceTemplates,
    );
    const search = { status: 'open', limit: 3 };
    expect(await invoker.callTool('search_tickets', search, admitted)).toEqual(
      await admin.callTool({ name: 'search_tickets', arguments: search }),
    );
    expect(await invoker.getPrompt('triage_ticket', { ticketId: 'T-2001' }, admitted)).toEqual(
      await admin.getPrompt({ name: 'triage_ticket', arguments: { ticketId: 'T-2001' } }),
    );
    const templates = await invoker.listResourceTemplates(admitted);
    const [article] = await invoker.listResources(admitted);
    expect(templates.map((template) => template.uriTemplate)).toEqual([
      'desk://tickets/{ticketId}',
      'kb://articles/{slug}',
    ]);
    expect(await invoker.readResource(article.uri, admitted)).toEqual(await admin.readResource({ uri: article.uri }));
  });

  it('gives a field-level validation failure as MCP does', async () => {
    const args = { status: 'urgent' };
    const viaMcp = (await admin.callTool({ name: 'search_tickets', arguments: args })) as CallToolResult;
    const inProcess = await invoker.send<CallToolResult>(
      'tools/call',
      { name: 'search_tickets', arguments: args },
      admitted,
    );
    expect(inProcess.result).toEqual(viaMcp);
    expect(inProcess.result.isError).toBe(true);
    expect(textOf(inProcess.result)).toContain('status');
    expect(inProcess.outcome).toBe('invalid');
  });

  it('applies the caller’s authorization: the read-only key neither lists nor calls write tools', async () => {
    const listed = await invoker.listTools({ credential: DESK_KEYS.reader });
    expect(listed).toEqual((await reader.listTools()).tools);
    expect(listed.map((tool) => tool.name)).not.toContain('close_ticket');
    const refused = await rejectionOf(
      invoker.callTool('close_ticket', { ticketId: 'T-2001', resolution: 'x' }, { credential: DESK_KEYS.reader }),
    );
    expect(refused.outcome).toBe('denied');
    expect(refused.message).toBe('Unknown tool: close_ticket');
    const unknown = await rejectionOf(invoker.callTool('no_such_tool', {}, admitted));
    expect(unknown.outcome).toBe('invalid');
    expect(unknown.message).toBe('Unknown tool: no_such_tool');
  });

  it('refuses a credential the authenticator rejects, and audits the refusal as in-process', async () => {
    const refused = await rejectionOf(invoker.listTools({ credential: 'not-a-key' }));
    expect(refused).toMatchObject({ outcome: 'unauthenticated', message: 'Unauthorized: The API key is not valid' });
    const [record] = await auditRecords(
      desk.auditFile,
      (entry) => entry.transport === 'in-process' && entry.outcome === 'unauthenticated',
    );
    expect(record.errorCode).toBe(401);
  });

  it('audits each call with transport in-process, its principal and its client', async () => {
    await invoker.callTool(
      'get_ticket',
      { ticketId: 'T-2002' },
      { ...admitted, clientInfo: { name: 'nightly', version: '2' } },
    );
    const [record] = await auditRecords(
      desk.auditFile,
      (entry) => entry.transport === 'in-process' && entry.target === 'get_ticket',
    );
    expect(record).toMatchObject({ principal: 'desk-admin', outcome: 'ok', client: { name: 'nightly', version: '2' } });
  });

  it('runs as the configured stdio principal when the caller names no one', async () => {
    const ticket = await invoker.callTool('create_ticket', {
      customerId: 'C-1001',
      subject: 'Printer on fire',
      description: 'It is on fire.',
      priority: 'high',
    });
    expect(ticket.isError).toBeUndefined();
    const [record] = await auditRecords(
      desk.auditFile,
      (entry) => entry.transport === 'in-process' && entry.target === 'create_ticket',
    );
    expect(record.principal).toBe('local-operator');
  });

  it('reports progress and cancels the call through its signal, as notifications/cancelled does', async () => {
    const progress: number[] = [];
    const controller = new AbortController();
    const cancelled = await rejectionOf(
      invoker.callTool(
        'export_ticket_report',
        {},
        {
          ...admitted,
          signal: controller.signal,
          onProgress: ({ progress: done }) => {
            progress.push(done);
            controller.abort(new Error('operator pressed Ctrl-C'));
          },
        },
      ),
    );
    expect(cancelled.outcome).toBe('cancelled');
    expect(progress.length).toBeGreaterThan(0);
    const [record] = await auditRecords(
      desk.auditFile,
      (entry) => entry.transport === 'in-process' && entry.target === 'export_ticket_report',
    );
    expect(record.outcome).toBe('cancelled');
  });

  it('asks the caller to confirm a destructive tool, and runs it only when confirmed', async () => {
    const questions: string[] = [];
    const declined = await invoker.send<CallToolResult>(
      'tools/call',
      { name: 'close_ticket', arguments: { ticketId: 'T-2003', resolution: 'Fixed upstream.' } },
      {
        ...admitted,
        elicit: async (request) => {
          questions.push(request.message);
          return { action: 'decline' };
        },
      },
    );
    expect(declined.result.isError).toBe(true);
    expect(declined.outcome).toBe('denied');
    expect(questions).toHaveLength(1);
    const confirmed = await invoker.callTool(
      'close_ticket',
      { ticketId: 'T-2003', resolution: 'Fixed upstream.' },
      { ...admitted, elicit: async () => ({ action: 'accept', content: { confirm: true } }) },
    );
    expect(confirmed.isError).toBeUndefined();
    expect((await invoker.callTool('get_ticket', { ticketId: 'T-2003' }, admitted)).structuredContent).toMatchObject({
      status: 'closed',
    });
  });

  it('answers a destructive call the same way an MCP client without forms is answered when no one can confirm', async () => {
    const args = { ticketId: 'T-2005', resolution: 'Done.' };
    const inProcess = await invoker.callTool('close_ticket', args, admitted);
    expect(inProcess.isError).toBe(true);
    expect(textOf(inProcess)).toContain('approv');
  });
});

describe('McpInvoker: throttling applies as for MCP clients', () => {
  let desk: DeskHost;
  beforeAll(async () => (desk = await startDeskHost({ THROTTLE_LIMIT: '2', THROTTLE_TTL_MS: '60000' })));
  afterAll(() => desk.close());

  it('counts in-process calls per principal and per tool, and refuses the next one as throttled', async () => {
    const invoker = desk.app.get(McpInvoker);
    const call = () =>
      invoker.send<CallToolResult>('tools/call', { name: 'get_ticket', arguments: { ticketId: 'T-2001' } });
    expect((await call()).outcome).toBe('ok');
    expect((await call()).outcome).toBe('ok');
    const throttled = await call();
    expect(throttled).toMatchObject({ outcome: 'throttled', result: { isError: true } });
    // Another principal has its own count.
    const other = await invoker.callTool(
      'get_ticket',
      { ticketId: 'T-2001' },
      { principal: { id: 'someone-else', scopes: ['tickets:read'], roles: [], claims: {} } },
    );
    expect(other.isError).toBeUndefined();
  });
});
