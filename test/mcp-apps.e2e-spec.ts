import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { Client, CallToolResult, Tool } from '@modelcontextprotocol/client';
import { type Browser, type FrameLocator, type Page } from 'playwright-core';
import { CHROMIUM, launchChromium } from './support/chromium';
import { appHostPage } from './support/app-host-page';
import { auditRecords, DESK_HTTP_TOOLS, DESK_KEYS, startDeskHost } from './support/desk-host';
import { connectSdkV2, LEGACY, MODERN, type ConnectedV2 } from './support/era-clients';

const UI = 'io.modelcontextprotocol/ui';
const MIME = 'text/html;profile=mcp-app';
const RENDERS_VIEWS = { [UI]: { mimeTypes: [MIME] } };
const OUTPUT = join(__dirname, '..', 'test-output');
const DOCS = join(__dirname, '..', 'docs');
const APP_ONLY = ['ticket_customer', 'ticket_status_counts'];
/** The policy every desk view declares: no origin beyond its own document. */
const NO_ORIGINS = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] };

type Principal = 'admin' | 'reader';

// The page's globals (appHostPage), for the callbacks playwright runs there (the project has no DOM lib).
interface HostWindow {
  renderView(view: unknown): Promise<void>;
  sendResult(id: string, result: unknown): Promise<void>;
}
declare const window: HostWindow;

/**
 * MCP Apps with the real bridge: the desk (src/) serves its views; the official host side of
 * `@modelcontextprotocol/ext-apps` (AppBridge and its postMessage transport) runs in Debian's
 * chromium and frames each view in a sandboxed frame, the SDK v2 client in this process holding
 * the connection to the desk. Each view gets its tool's input and result, calls tools through the
 * bridge (app-only ones among them), renders — asserted from its DOM — and is kept as a screenshot
 * (test-output/, and docs/ with UPDATE_DOCS_SCREENSHOT=1: `npm run docs:screenshot`). Also: the
 * SDK v2 client in both eras sees the extension and the metadata, a client that renders no views
 * neither sees nor may call the app-only tools, and a view calling a tool its principal may not
 * call is refused and audited as a call from a view.
 */
describe('MCP Apps: the desk’s views in chromium through the official AppBridge', () => {
  let app: INestApplication;
  let url: string;
  let auditFile: string;
  let browser: Browser;
  let page: Page;
  const clients = {} as Record<Principal, Client>;
  const connections: ConnectedV2[] = [];
  const viewCalls: { principal: Principal; name: string; isError: boolean }[] = [];
  const questions: string[] = [];

  const connect = async (principal: Principal, mode: 'legacy' | 'auto' | { pin: string }, views = true) => {
    const headers = { authorization: `Bearer ${DESK_KEYS[principal]}` };
    const connected = await connectSdkV2(url, `apps-${principal}`, mode, {
      headers,
      ...(views && { extensions: RENDERS_VIEWS }),
      elicit: (message) => {
        questions.push(message);
        return { action: 'accept', content: { confirm: true } };
      },
    });
    connections.push(connected);
    return connected.client;
  };
  const toolOf = async (client: Client, name: string): Promise<Tool> => {
    const tool = (await client.listTools()).tools.find((candidate) => candidate.name === name);
    if (!tool) throw new Error(`no tool ${name}`);
    return tool;
  };
  /** What the client renders for a tool: the view its `_meta.ui` names, read through the client. */
  const viewOf = async (client: Client, tool: Tool) => {
    const uri = (tool._meta as { ui: { resourceUri: string } }).ui.resourceUri;
    const [contents] = (await client.readResource({ uri })).contents as unknown as [{ text: string; mimeType: string }];
    expect(contents.mimeType).toBe(MIME);
    return contents.text;
  };
  const render = async (
    principal: Principal,
    id: string,
    caption: string,
    tool: Tool,
    input: Record<string, unknown>,
  ): Promise<FrameLocator> => {
    const html = await viewOf(clients[principal], tool);
    const view = JSON.parse(JSON.stringify({ id, caption, html, tool, input, principal })) as Record<string, unknown>;
    await page.evaluate((value) => window.renderView(value), view);
    return page.frameLocator(`#${id}`);
  };
  const sendResult = (id: string, result: CallToolResult) =>
    page.evaluate(({ frame, value }) => window.sendResult(frame, value), {
      frame: id,
      value: JSON.parse(JSON.stringify(result)) as Record<string, unknown>,
    });
  const screenshot = async (id: string, name: string) => {
    await mkdir(OUTPUT, { recursive: true });
    const image = await page.locator(`#${id}`).screenshot({ path: join(OUTPUT, name) });
    if (process.env.UPDATE_DOCS_SCREENSHOT === '1') {
      await page.locator(`#${id}`).screenshot({ path: join(DOCS, name) });
    }
    expect(image.length).toBeGreaterThan(5_000);
  };

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)`);
    ({ app, url, auditFile } = await startDeskHost({ AUTH_MODE: 'apiKey', SUPPORT_REPORT_STEP_MS: '5' }));
    clients.admin = await connect('admin', 'auto');
    clients.reader = await connect('reader', 'auto');
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 640, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    // The SDK client of the host: a view's tools/call, relayed by the bridge, as the principal's own call.
    await page.exposeFunction('hostCallTool', async (principal: Principal, params: { name: string }) => {
      try {
        const result = (await clients[principal].callTool(params as never)) as CallToolResult;
        viewCalls.push({ principal, name: params.name, isError: result.isError === true });
        return result;
      } catch (error) {
        viewCalls.push({ principal, name: params.name, isError: true });
        throw error;
      }
    });
    await page.setContent(await appHostPage());
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    for (const { client } of connections) await client.close().catch(() => undefined);
    await app?.close();
  });

  it('renders the ticket card of get_ticket, which calls the app-only ticket_customer through the bridge', async () => {
    const tool = await toolOf(clients.admin, 'get_ticket');
    expect(tool._meta).toMatchObject({ ui: { resourceUri: 'ui://desk/ticket-card' } });
    const input = { ticketId: 'T-2001' };
    const frame = await render('admin', 'ticket-card', 'get_ticket T-2001', tool, input);
    const result = (await clients.admin.callTool({ name: 'get_ticket', arguments: input })) as CallToolResult;
    const ticket = result.structuredContent as { id: string; subject: string; status: string; customerId: string };
    await sendResult('ticket-card', result);

    await frame.locator('#card[data-state="ready"]').waitFor({ timeout: 10_000 });
    expect(await frame.locator('h1').textContent()).toBe(`${ticket.id} · ${ticket.subject}`);
    expect(await frame.locator('#status').textContent()).toBe(ticket.status);
    const customer = (
      await clients.admin.callTool({ name: 'get_customer', arguments: { customerId: ticket.customerId } })
    ).structuredContent as { name: string; company: string };
    expect(await frame.locator('#customer-name').textContent()).toBe(`${customer.name} (${customer.company})`);
    expect(viewCalls).toContainEqual({ principal: 'admin', name: 'ticket_customer', isError: false });
    await screenshot('ticket-card', 'apps-ticket-card.png');

    const [record] = await auditRecords(
      auditFile,
      (r) => r.target === 'ticket_customer' && r.principal === 'desk-admin',
    );
    expect(record).toMatchObject({ method: 'tools/call', outcome: 'ok', origin: 'view' });
  });

  it('renders the report of export_ticket_report with a chart drawn from the app-only ticket_status_counts', async () => {
    const tool = await toolOf(clients.admin, 'export_ticket_report');
    const frame = await render('admin', 'ticket-report', 'export_ticket_report', tool, {});
    const result = (await clients.admin.callTool({ name: 'export_ticket_report', arguments: {} })) as CallToolResult;
    await sendResult('ticket-report', result);

    await frame.locator('#report[data-state="ready"]').waitFor({ timeout: 10_000 });
    expect(await frame.locator('#summary').textContent()).toBe((result.content[0] as { text: string }).text);
    const shown = await frame
      .locator('#chart rect')
      .evaluateAll((bars) =>
        bars.map((bar) => [bar.getAttribute('data-status'), Number(bar.getAttribute('data-count'))]),
      );
    const counted = { open: 0, pending: 0, closed: 0 } as Record<string, number>;
    for (const status of Object.keys(counted)) {
      const found = (await clients.admin.callTool({ name: 'search_tickets', arguments: { status, limit: 100 } }))
        .structuredContent as { count: number };
      counted[status] = found.count;
    }
    expect(Object.fromEntries(shown)).toEqual(counted);
    expect(viewCalls).toContainEqual({ principal: 'admin', name: 'ticket_status_counts', isError: false });
    await screenshot('ticket-report', 'apps-ticket-report.png');
  });

  it('shows the person approving close_ticket what they approve, then what the call did', async () => {
    const tool = await toolOf(clients.admin, 'close_ticket');
    const open = (await clients.admin.callTool({ name: 'search_tickets', arguments: { status: 'open', limit: 1 } }))
      .structuredContent as { tickets: { id: string; subject: string }[] };
    const { id, subject } = open.tickets[0];
    const input = { ticketId: id, resolution: 'Replaced the faulty router; the customer confirmed it works.' };
    const frame = await render('admin', 'close-approval', `close_ticket ${id}`, tool, input);
    await frame.locator('#subject').waitFor({ timeout: 10_000 });
    expect(await frame.locator('h1').textContent()).toBe(`Close ticket ${id}?`);
    expect(await frame.locator('#resolution').textContent()).toBe(input.resolution);
    expect(await frame.locator('#subject').textContent()).toBe(subject);
    expect(await frame.locator('#status-now').textContent()).toBe('open');
    await screenshot('close-approval', 'apps-close-approval.png');

    const asked = questions.length;
    const result = (await clients.admin.callTool({ name: 'close_ticket', arguments: input })) as CallToolResult;
    expect(questions.length).toBe(asked + 1); // confirmed by a person, as every destructive call
    await sendResult('close-approval', result);
    await frame.locator('#approval[data-state="closed"]').waitFor({ timeout: 10_000 });
    expect(await frame.locator('#decision').textContent()).toBe(`Closed: ${id} is now closed.`);
  });

  it('refuses a view’s call of a tool its principal may not call, and audits it as a call from a view', async () => {
    const tool = await toolOf(clients.admin, 'export_ticket_report');
    const frame = await render('reader', 'reader-report', 'a report view, opened by desk-reader', tool, {});
    await sendResult('reader-report', { content: [{ type: 'text', text: 'Report of 0 ticket(s): none.' }] });
    await frame.locator('#report[data-state="refused"]').waitFor({ timeout: 10_000 });
    expect(await frame.locator('#counts-error').textContent()).toContain('ticket_status_counts');
    expect(viewCalls).toContainEqual({ principal: 'reader', name: 'ticket_status_counts', isError: true });
    const [record] = await auditRecords(
      auditFile,
      (r) => r.target === 'ticket_status_counts' && r.principal === 'desk-reader',
    );
    expect(record).toMatchObject({ method: 'tools/call', outcome: 'denied', origin: 'view' });
  });

  describe.each([
    ['2025-11-25 (initialize)', 'legacy' as const, LEGACY],
    ['2026-07-28 (server/discover, per-request capabilities)', { pin: MODERN }, MODERN],
  ])('the SDK v2 client, %s', (_era, mode, version) => {
    it('sees the extension, the tools’ and views’ metadata, and the app-only tools when it renders views', async () => {
      const client = await connect('admin', mode);
      expect(client.getNegotiatedProtocolVersion?.() ?? version).toBe(version);
      expect(client.getServerCapabilities()?.extensions?.[UI]).toEqual({ mimeTypes: [MIME] });
      const tools = (await client.listTools()).tools;
      expect(tools.map((tool) => tool.name).sort()).toEqual([...DESK_HTTP_TOOLS, ...APP_ONLY].sort());
      expect(tools.find((tool) => tool.name === 'ticket_customer')?._meta).toEqual({ ui: { visibility: ['app'] } });
      expect(tools.find((tool) => tool.name === 'close_ticket')?._meta).toEqual({
        ui: { resourceUri: 'ui://desk/close-approval' },
        'ui/resourceUri': 'ui://desk/close-approval',
      });
      const views = (await client.listResources()).resources.filter((resource) => resource.mimeType === MIME);
      expect(views.map((view) => [view.uri, view._meta])).toEqual([
        ['ui://desk/ticket-card', { ui: { csp: NO_ORIGINS, prefersBorder: true } }],
        ['ui://desk/ticket-report', { ui: { csp: NO_ORIGINS, prefersBorder: true } }],
        ['ui://desk/close-approval', { ui: { csp: NO_ORIGINS, prefersBorder: true } }],
      ]);
      const [contents] = (await client.readResource({ uri: 'ui://desk/ticket-card' })).contents as unknown as [
        { _meta: unknown; text: string },
      ];
      expect(contents._meta).toEqual({ ui: { csp: NO_ORIGINS, prefersBorder: true } });
      expect(contents.text).toMatch(
        /<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-[^']+' 'sha256-[^']+'; /,
      );
      expect(
        (await client.callTool({ name: 'ticket_customer', arguments: { ticketId: 'T-2001' } })).isError,
      ).toBeFalsy();
    });

    it('gives a client that renders no views the same tools with their text, and no app-only tool', async () => {
      const client = await connect('admin', mode, false);
      expect(client.getServerCapabilities()?.extensions?.[UI]).toEqual({ mimeTypes: [MIME] });
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(DESK_HTTP_TOOLS);
      const result = (await client.callTool({
        name: 'get_ticket',
        arguments: { ticketId: 'T-2001' },
      })) as CallToolResult;
      expect(result.content[0]).toMatchObject({ type: 'text', text: expect.stringContaining('"id":"T-2001"') });
      await expect(client.callTool({ name: 'ticket_customer', arguments: { ticketId: 'T-2001' } })).rejects.toThrow(
        /Unknown tool: ticket_customer/,
      );
    });
  });
});

/**
 * Tool search is the model's path: through `call_tool` no app-only tool runs, even when the client
 * that relays the model renders views (it declared the extension, so its own direct calls of the
 * app-only tools are its views'). The relayed call is refused as any hidden entry and audited so.
 */
describe('MCP Apps and tool search: call_tool never runs an app-only tool', () => {
  let desk: Awaited<ReturnType<typeof startDeskHost>>;
  let connected: ConnectedV2;

  beforeAll(async () => {
    desk = await startDeskHost({ AUTH_MODE: 'apiKey', MCP_TOOL_SEARCH: 'on' });
    connected = await connectSdkV2(desk.url, 'apps-search', 'legacy', {
      headers: { authorization: `Bearer ${DESK_KEYS.admin}` },
      extensions: RENDERS_VIEWS,
    });
  }, 60_000);
  afterAll(async () => {
    await connected?.client.close().catch(() => undefined);
    await desk?.close();
  });

  it('refuses call_tool of ticket_customer as an unknown tool, audited denied and not as a view’s call', async () => {
    const { client } = connected;
    const relayed = (await client.callTool({
      name: 'call_tool',
      arguments: { name: 'ticket_customer', arguments: { ticketId: 'T-2001' } },
    })) as CallToolResult;
    expect(relayed.isError).toBe(true);
    expect((relayed.content[0] as { text: string }).text).toMatch(/Unknown tool: ticket_customer.*search_tools/s);
    const [record] = await auditRecords(
      desk.auditFile,
      (r) => r.target === 'ticket_customer' && r.method === 'tools/call',
    );
    expect(record).toMatchObject({ principal: 'desk-admin', outcome: 'denied' });
    expect(record.origin).toBeUndefined();
    // The same client's own call is its view's: allowed, and recorded as coming from a view.
    const direct = (await client.callTool({
      name: 'ticket_customer',
      arguments: { ticketId: 'T-2001' },
    })) as CallToolResult;
    expect(direct.isError).toBeFalsy();
    const records = await auditRecords(desk.auditFile, (r) => r.target === 'ticket_customer', 2);
    expect(records[1]).toMatchObject({ outcome: 'ok', origin: 'view' });
    const found = (await client.callTool({
      name: 'search_tools',
      arguments: { query: 'customer of a ticket', limit: 20 },
    })) as CallToolResult;
    const names = (found.structuredContent as { tools: { name: string }[] }).tools.map(({ name }) => name);
    expect(names).not.toContain('ticket_customer');
    expect(names).not.toContain('ticket_status_counts');
  });
});
