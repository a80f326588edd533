import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type CallToolResult, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { connectHttpClient } from './support/fixture-app';
import { DESK_HTTP_TOOLS, DESK_RESOURCES, reportAsTask, startDeskHost } from './support/desk-host';
import { waitFor, waitForAsync } from './support/wait-for';
import { readFile } from 'node:fs/promises';
import { verifyChain, type AuditRecord } from '#libs/security';

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

describe('support desk host over Streamable HTTP', () => {
  let app: INestApplication;
  let client: Client;

  beforeAll(async () => {
    let url: string;
    ({ app, url } = await startDeskHost());
    client = await connectHttpClient(url, {}, { capabilities: { elicitation: {} } });
    // The agent's user confirms every destructive call.
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { confirm: true } }));
  });
  afterAll(async () => {
    await client.close();
    await app.close();
  });

  it('lists its tools with honest annotations', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()].sort()).toEqual(DESK_HTTP_TOOLS);
    expect(byName.get('close_ticket')!.annotations).toMatchObject({
      destructiveHint: true,
      idempotentHint: true,
      readOnlyHint: false,
    });
    expect(byName.get('search_tickets')!.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('search_tickets')!.inputSchema.properties).toMatchObject({
      status: { enum: ['open', 'pending', 'closed'] },
      limit: { type: 'integer', minimum: 1, maximum: 100 },
    });
    expect(byName.get('get_ticket')!.outputSchema).toMatchObject({
      type: 'object',
      required: expect.arrayContaining(['id', 'status']),
    });
  });

  it('runs a ticket through its life: search, open, comment, close (idempotently)', async () => {
    const found = (await client.callTool({ name: 'search_customers', arguments: { query: 'contoso' } }))
      .structuredContent as {
      customers: { id: string }[];
    };
    expect(found.customers).toEqual([{ id: 'C-1002', name: 'Bruno Costa', company: 'Contoso Ltd', tier: 'premium' }]);
    const created = (
      await client.callTool({
        name: 'create_ticket',
        arguments: {
          customerId: 'C-1002',
          subject: 'Printer on fire',
          description: 'The office printer is on fire again.',
          priority: 'urgent',
        },
      })
    ).structuredContent as { id: string; status: string };
    expect(created).toEqual({ id: 'T-2021', status: 'open' });
    const commented = await client.callTool({
      name: 'add_ticket_comment',
      arguments: { ticketId: created.id, author: 'tom.becker', body: 'Fire brigade called.' },
    });
    expect(commented.structuredContent).toEqual({ id: 'T-2021', status: 'open', comments: 1 });
    const closing = { name: 'close_ticket', arguments: { ticketId: created.id, resolution: 'Printer replaced.' } };
    expect((await client.callTool(closing)).structuredContent).toEqual({
      id: 'T-2021',
      status: 'closed',
      alreadyClosed: false,
    });
    expect((await client.callTool(closing)).structuredContent).toEqual({
      id: 'T-2021',
      status: 'closed',
      alreadyClosed: true,
    });
    const ticket = await client.callTool({ name: 'get_ticket', arguments: { ticketId: created.id } });
    expect(ticket.structuredContent).toMatchObject({
      id: 'T-2021',
      status: 'closed',
      resolution: 'Printer replaced.',
      comments: [{ author: 'tom.becker' }],
    });
    const customer = await client.callTool({ name: 'get_customer', arguments: { customerId: 'C-1002' } });
    expect(customer.structuredContent).toMatchObject({ id: 'C-1002', openTickets: expect.any(Number) });
  });

  it('tells the model how to correct bad arguments and unknown ids', async () => {
    const bad = (await client.callTool({ name: 'get_ticket', arguments: { ticketId: '42' } })) as CallToolResult;
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toContain('- ticketId: ticketId must look like T-2001');
    // A value of the wrong type gets its type error alone: the constraints it also fails would mislead the model.
    expect(textOf(await client.callTool({ name: 'search_tickets', arguments: { limit: '3', customerId: 1001 } }))).toBe(
      'Invalid arguments for tool "search_tickets":\n- customerId: must be a string, not the number 1001\n- limit: must be an integer, not the string "3"',
    );
    const unknown = (await client.callTool({
      name: 'get_ticket',
      arguments: { ticketId: 'T-9999' },
    })) as CallToolResult;
    expect(unknown).toEqual({
      content: [{ type: 'text', text: 'No ticket T-9999. Use search_tickets to find the right id.' }],
      isError: true,
    });
  });

  it('refuses arguments no schema declares, so a model cannot overwrite a ticket through create_ticket', async () => {
    const before = (await client.callTool({ name: 'get_ticket', arguments: { ticketId: 'T-2008' } })).structuredContent;
    const sneaky = (await client.callTool({
      name: 'create_ticket',
      arguments: {
        id: 'T-2008',
        customerId: 'C-1001',
        subject: 'Overwritten ticket',
        description: 'This replaced an existing ticket.',
        priority: 'low',
      },
    })) as CallToolResult;
    expect(sneaky).toEqual({
      content: [
        {
          type: 'text',
          text: 'Invalid arguments for tool "create_ticket":\n- id: is not an accepted argument (accepted: customerId, subject, description, priority)',
        },
      ],
      isError: true,
    });
    expect(
      (await client.callTool({ name: 'get_ticket', arguments: { ticketId: 'T-2008' } })).structuredContent,
    ).toEqual(before);
  });

  it('exports a report with progress, and stops when cancelled', async () => {
    const progress: number[] = [];
    const report = (await client.callTool({ name: 'export_ticket_report', arguments: { status: 'open' } }, undefined, {
      onprogress: (p) => void progress.push(p.progress),
    })) as CallToolResult;
    expect(textOf(report)).toMatch(/^Report of \d+ ticket\(s\) with status open: \d+ open\.$/);
    expect(report.content[1]).toMatchObject({
      type: 'resource',
      resource: { mimeType: 'text/csv', text: expect.stringMatching(/^id,customer,status,priority,subject\nT-/) },
    });
    expect(progress.length).toBeGreaterThan(1);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);

    const controller = new AbortController();
    const cancelled = client.callTool({ name: 'export_ticket_report', arguments: {} }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort('enough'),
    });
    await expect(cancelled).rejects.toThrow();
    expect(textOf(await client.callTool({ name: 'search_tickets', arguments: { limit: 1 } }))).toContain('"count":1');
  });
});

describe('support desk confirmation of close_ticket', () => {
  it('holds close_ticket from a client that cannot ask its user until a desk approver approves it', async () => {
    const { app, url } = await startDeskHost({ AUTH_MODE: 'apiKey' });
    const base = url.replace(/\/mcp$/, '');
    // As LangChain or the AI SDK call it: no elicitation, nothing but the arguments from the model.
    const agent = await connectHttpClient(url, { 'x-api-key': 'desk-demo-admin-key' });
    try {
      const args = { ticketId: 'T-2002', resolution: 'Re-issued the invoice with 7 % VAT.' };
      const first = (await agent.callTool({ name: 'close_ticket', arguments: args })) as CallToolResult;
      expect(first.isError).toBe(true);
      expect(textOf(first)).toMatch(/^"close_ticket" needs a person's approval before it runs, and it was not run\./);
      expect(
        (await agent.callTool({ name: 'get_ticket', arguments: { ticketId: 'T-2002' } })).structuredContent,
      ).toMatchObject({ status: 'pending' });
      // The desk's approver sees who wants what, and approves it.
      const approver = { 'x-api-key': 'desk-demo-approver-key' };
      const listed = (await (
        await fetch(`${base}/admin/api/approvals?status=pending`, { headers: approver })
      ).json()) as {
        approvals: { id: string; principal: string; tool: string; arguments: unknown }[];
      };
      expect(listed.approvals).toEqual([
        expect.objectContaining({ principal: 'desk-admin', tool: 'close_ticket', arguments: args }),
      ]);
      const decided = await fetch(`${base}/admin/api/approvals/${listed.approvals[0].id}/approve`, {
        method: 'POST',
        headers: { ...approver, 'content-type': 'application/json' },
        body: JSON.stringify({ reason: 'customer confirmed by phone' }),
      });
      expect(decided.status).toBe(200);
      const closed = await agent.callTool({ name: 'close_ticket', arguments: args });
      expect(closed.structuredContent).toEqual({ id: 'T-2002', status: 'closed', alreadyClosed: false });
    } finally {
      await agent.close();
      await app.close();
    }
  });
});

describe('support desk knowledge base and triage prompt', () => {
  let app: INestApplication;
  let client: Client;
  beforeAll(async () => {
    let url: string;
    ({ app, url } = await startDeskHost());
    client = await connectHttpClient(url);
  });
  afterAll(async () => {
    await client.close();
    await app.close();
  });

  it('serves knowledge-base articles as resources, completing slugs', async () => {
    expect((await client.listResources()).resources.map((resource) => resource.uri)).toEqual(DESK_RESOURCES);
    expect((await client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate)).toEqual([
      'desk://tickets/{ticketId}',
      'kb://articles/{slug}',
    ]);
    const index = await client.readResource({ uri: 'kb://articles' });
    expect(index.contents[0]).toMatchObject({
      mimeType: 'text/markdown',
      text: expect.stringContaining('(kb://articles/vat-rates)'),
    });
    const article = await client.readResource({ uri: 'kb://articles/vat-rates' });
    expect(article.contents[0]).toMatchObject({
      uri: 'kb://articles/vat-rates',
      text: expect.stringMatching(/^# VAT on invoices\n\nBooks and e-books carry 7 % VAT/),
    });
    await expect(client.readResource({ uri: 'kb://articles/unknown' })).rejects.toMatchObject({
      code: -32002,
      data: { uri: 'kb://articles/unknown' },
    });
    const slugs = await client.complete({
      ref: { type: 'ref/resource', uri: 'kb://articles/{slug}' },
      argument: { name: 'slug', value: 'r' },
    });
    expect(slugs.completion.values).toEqual(['rate-limits', 'refunds']);
  });

  it('sets an agent up to triage a ticket, completing open ticket ids', async () => {
    const prompt = await client.getPrompt({ name: 'triage_ticket', arguments: { ticketId: 'T-2001' } });
    expect(prompt.messages[0].content).toMatchObject({
      type: 'resource',
      resource: { uri: 'desk://tickets/T-2001', mimeType: 'application/json' },
    });
    expect(prompt.messages[1].content).toMatchObject({
      type: 'text',
      text: expect.stringContaining('Triage ticket T-2001 above.'),
    });
    await expect(client.getPrompt({ name: 'triage_ticket', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    await expect(client.getPrompt({ name: 'triage_ticket', arguments: { ticketId: 'T-0000' } })).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining('No ticket T-0000; use search_tickets to find one.'),
    });
    const ids = await client.complete({
      ref: { type: 'ref/prompt', name: 'triage_ticket' },
      argument: { name: 'ticketId', value: 't-200' },
    });
    expect(ids.completion.values.length).toBeGreaterThan(0);
    expect(ids.completion.values.every((id) => /^T-200\d$/.test(id))).toBe(true);
  });
});

describe('support desk report as a task', () => {
  it('starts the report, then fetches its result by task id', async () => {
    const { app, url } = await startDeskHost();
    const client = await connectHttpClient(url);
    try {
      const tools = (await client.listTools()).tools;
      expect(tools.find((tool) => tool.name === 'export_ticket_report')!.execution).toEqual({
        taskSupport: 'optional',
      });
      const { created, result } = await reportAsTask(client);
      expect(created.task.status).toBe('working');
      expect(textOf(result)).toMatch(/^Report of \d+ ticket\(s\) with status closed/);
    } finally {
      await client.close();
      await app.close();
    }
  });
});

describe('support desk with API keys (config/api-keys.example.json)', () => {
  it('gives the read-only key the read tools and the admin key everything', async () => {
    const { app, url } = await startDeskHost({ AUTH_MODE: 'apiKey' });
    const reader = await connectHttpClient(url, { authorization: 'Bearer desk-demo-read-only-key' });
    const admin = await connectHttpClient(url, { 'x-api-key': 'desk-demo-admin-key' });
    try {
      const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).sort();
      expect(await names(reader)).toEqual([
        'getCustomer',
        'getTicket',
        'get_customer',
        'get_ticket',
        'listCustomers',
        'listTickets',
        'search_customers',
        'search_tickets',
      ]);
      expect(await names(admin)).toEqual(DESK_HTTP_TOOLS);
      await expect(
        reader.callTool({ name: 'close_ticket', arguments: { ticketId: 'T-2001', resolution: 'Not allowed' } }),
      ).rejects.toMatchObject({ code: -32602 });
      expect((await reader.readResource({ uri: 'kb://articles/refunds' })).contents[0]).toMatchObject({
        uri: 'kb://articles/refunds',
      });
      const anonymous = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });
      expect(anonymous.status).toBe(401);
    } finally {
      await reader.close();
      await admin.close();
      await app.close();
    }
  });
});

describe('support desk in read-only mode', () => {
  it('refuses tools that change data, through the global guard, and serves the rest', async () => {
    const { app, url } = await startDeskHost({ SUPPORT_READ_ONLY: 'true' });
    const client = await connectHttpClient(url);
    try {
      const refused = await client.callTool({
        name: 'close_ticket',
        arguments: { ticketId: 'T-2001', resolution: 'Closing while frozen' },
      });
      expect(refused).toEqual({
        content: [
          {
            type: 'text',
            text: 'The support desk is in read-only mode: only read-only tools can be called right now.',
          },
        ],
        isError: true,
      });
      const ticket = await client.callTool({ name: 'get_ticket', arguments: { ticketId: 'T-2001' } });
      expect(ticket.structuredContent).toMatchObject({ id: 'T-2001', status: 'open' });
    } finally {
      await client.close();
      await app.close();
    }
  });
});

describe('support desk host over stdio (a real process)', () => {
  it('serves the same tools to the SDK client, with nothing but protocol on stdout, and audits them', async () => {
    const errors: Error[] = [];
    const auditFile = join(tmpdir(), `desk-audit-${randomUUID()}.jsonl`);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(__dirname, '..', 'dist', 'src', 'main.stdio.js')],
      env: { ...process.env, SUPPORT_REPORT_STEP_MS: '10', AUDIT_FILE: auditFile } as Record<string, string>,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk) => (stderr += chunk));
    const client = new Client({ name: 'desktop-client', version: '1.0.0' });
    client.onerror = (error) => void errors.push(error);
    await client.connect(transport);
    // What arrives on the wire, in order, before the SDK client handles it.
    const wire: JSONRPCMessage[] = [];
    const handle = transport.onmessage!;
    transport.onmessage = (message: JSONRPCMessage) => {
      wire.push(message);
      handle(message);
    };
    try {
      expect((await client.listTools()).tools).toHaveLength(8);
      const result = await client.callTool({ name: 'search_tickets', arguments: { status: 'closed', limit: 2 } });
      expect(result.structuredContent).toMatchObject({
        count: 2,
        tickets: [{ status: 'closed' }, { status: 'closed' }],
      });
      const progress: number[] = [];
      await client.callTool({ name: 'export_ticket_report', arguments: {} }, undefined, {
        onprogress: (p) => void progress.push(p.progress),
      });
      // Every progress notification precedes the result on the wire.
      const seen = wire
        .slice(2)
        .flatMap<number | string>((message) =>
          'method' in message && message.method === 'notifications/progress'
            ? [(message.params as { progress: number }).progress]
            : 'result' in message
              ? ['result']
              : [],
        );
      expect(seen).toEqual([4, 8, 12, 16, 20, 'result']);
      // The SDK client runs notification handlers a microtask late but drops a call's progress
      // handler as soon as its result is read, so when the last notification and the result share
      // one stdio chunk (a busy machine), it reports that notification's token as unknown.
      const lastMissed = (error: Error) =>
        /progress notification for an unknown token.*"progress":20\b/.test(error.message);
      expect<number[][]>([
        [4, 8, 12, 16, 20],
        [4, 8, 12, 16],
      ]).toContainEqual(progress);
      expect(errors.filter((error) => !(progress.length === 4 && lastMissed(error)))).toEqual([]); // a stray log line on stdout would surface here as a parse error
      // stderr is a pipe of its own: give it time to deliver what the host logged at start-up.
      await waitFor(() => stderr.includes('registered'), 10_000);
      expect(stderr).toContain('10 tool(s), 1 prompt(s), 4 resource(s), 2 resource template(s) registered');
    } finally {
      await client.close();
    }
    // Closing stdin shuts the host down, which flushes its trail: the calls are there, as the local operator's.
    let records: AuditRecord[] = [];
    await waitForAsync(async () => {
      records = (await readFile(auditFile, 'utf8').catch(() => ''))
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as AuditRecord);
      return records.some((record) => record.target === 'export_ticket_report');
    }, 20_000).catch((error) => {
      throw new Error(
        `${(error as Error).message}: ${auditFile} holds ${JSON.stringify(records)}; stderr: ${stderr.slice(-2000)}`,
      );
    });
    expect(records.filter((record) => record.method === 'tools/call')).toMatchObject([
      {
        transport: 'stdio',
        principal: 'local-operator',
        target: 'search_tickets',
        outcome: 'ok',
        client: { name: 'desktop-client', version: '1.0.0' },
      },
      { transport: 'stdio', principal: 'local-operator', target: 'export_ticket_report', outcome: 'ok' },
    ]);
    expect(await verifyChain(records)).toMatchObject({ ok: true });
  }, 60_000); // a whole Nest process starts and stops here: allow for a loaded machine
});
