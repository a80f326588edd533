import { existsSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type Browser, type Page } from 'playwright-core';
import { CHROMIUM, launchChromium } from './support/chromium';
import { DESK_KEYS, startDeskHost } from './support/desk-host';
import { startDeskProcess, type DeskProcess } from './support/desk-process';
import { connectHttpClient } from './support/fixture-app';

// Globals of the page, for the callbacks playwright runs in the browser (the project has no DOM lib).
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- untyped on purpose: no DOM types to give them.
declare const document: any, window: any, sessionStorage: any, getComputedStyle: any;

const OUTPUT = join(__dirname, '..', 'test-output');
const DOCS_SCREENSHOT = join(__dirname, '..', 'docs', 'admin-dashboard.png');
const DOCS_CHARTS = join(__dirname, '..', 'docs', 'admin-charts.png');
const DOCS_SERVERS = join(__dirname, '..', 'docs', 'admin-servers.png');

interface StatsEntry {
  kind: string;
  name: string;
  calls: number;
  errors: number;
}

/**
 * The admin dashboard in a real browser (Debian's chromium through playwright-core): the
 * support desk serves some calls, some failing; the page, given the demo admin key, shows per
 * tool the very numbers `/admin/api/stats` returns and that the test caused, and the sessions;
 * a non-admin key gets the 403 message. Saves a screenshot to test-output/ (and, with
 * UPDATE_DOCS_SCREENSHOT=1 — `npm run docs:screenshot` — to docs/admin-dashboard.png).
 */
describe('admin dashboard in chromium', () => {
  let app: INestApplication;
  let base: string;
  let admin: Client;
  let reader: Client;
  let browser: Browser;
  let page: Page;
  let upstream: DeskProcess;
  /** Every Content-Security-Policy violation the page reported. */
  const violations: string[] = [];
  const expected = new Map<string, { calls: number; errors: number }>();

  const call = async (client: Client, name: string, args: Record<string, unknown>, fails: boolean) => {
    const count = expected.get(name) ?? { calls: 0, errors: 0 };
    expected.set(name, { calls: count.calls + 1, errors: count.errors + (fails ? 1 : 0) });
    const result = await client
      .callTool({ name, arguments: args })
      .catch((error: Error) => ({ isError: true, content: [], thrown: error.message }));
    expect({ name, args, failed: Boolean((result as CallToolResult).isError), result }).toMatchObject({
      name,
      args,
      failed: fails,
    });
  };
  const apiStats = async (): Promise<StatsEntry[]> => {
    const response = await fetch(`${base}/admin/api/stats`, {
      headers: { authorization: `Bearer ${DESK_KEYS.admin}` },
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { entries: StatsEntry[] }).entries;
  };
  const shownRow = (entry: string) =>
    page.$eval(`#stats-rows tr[data-entry="${entry}"]`, (row) => ({
      calls: Number(row.querySelector('[data-col="calls"]')!.textContent!.replace(/,/g, '')),
      errors: Number(row.querySelector('[data-col="errors"]')!.textContent!.replace(/,/g, '')),
    }));
  const refreshes = async () => Number(await page.getAttribute('html', 'data-refreshes'));

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(
        `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium; npm test does it first when run as root)`,
      );
    // The desk as `AUTH_MODE=apiKey npm start` runs it, with reports quick to finish, named as a replica.
    ({ app, base } = await startDeskHost({
      AUTH_MODE: 'apiKey',
      SUPPORT_REPORT_STEP_MS: '10',
      MCP_REPLICA: 'desk-eu-1',
      VIRTUAL_SERVERS_ALLOW_HOSTS: '127.0.0.1',
    }));
    // An upstream added at run time (a virtual server): another desk, its ticket lookups only.
    upstream = await startDeskProcess({ VIRTUAL_SERVERS: 'off', AUDIT_SINK: 'off' });
    const added = await fetch(`${base}/admin/api/servers/upstreams`, {
      method: 'POST',
      headers: { 'x-api-key': DESK_KEYS.admin, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'crm',
        transport: { type: 'http', url: `http://127.0.0.1:${upstream.port}/mcp` },
        tools: { allow: ['get_ticket'] },
        scopes: ['tickets:read'],
      }),
    });
    expect(added.status).toBe(200);
    admin = await connectHttpClient(`${base}/mcp`, { authorization: `Bearer ${DESK_KEYS.admin}` });
    await call(admin, 'crm__get_ticket', { ticketId: 'T-2003' }, false);
    await call(admin, 'crm__get_ticket', { ticketId: 'T-2005' }, false);
    reader = await connectHttpClient(`${base}/mcp`, { 'x-api-key': DESK_KEYS.reader });
    for (const status of ['open', 'pending', 'closed']) await call(admin, 'search_tickets', { status }, false);
    await call(admin, 'get_ticket', { ticketId: 'T-2001' }, false);
    await call(admin, 'get_ticket', { ticketId: 'T-9999' }, true);
    await call(admin, 'get_ticket', { ticketId: 'T-9998' }, true);
    await call(admin, 'search_customers', { query: 'contoso' }, false);
    await call(admin, 'get_customer', {}, true); // invalid arguments
    await call(
      admin,
      'create_ticket',
      { customerId: 'C-0000', subject: 'Nobody', description: 'No such customer.', priority: 'low' },
      true,
    );
    await call(reader, 'search_tickets', { status: 'open' }, false);
    await call(
      reader,
      'create_ticket',
      { customerId: 'C-1002', subject: 'Denied', description: 'Needs tickets:write.', priority: 'low' },
      true,
    ); // hidden: denied
    await reader.readResource({ uri: 'kb://articles' });

    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    page.on('console', (message) => {
      if (/Content[- ]Security[- ]Policy/i.test(message.text())) violations.push(message.text());
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await admin?.close();
    await reader?.close();
    await app?.close();
    await upstream?.stop();
  });

  it('asks for a key, and shows the 403 message to a key that is not an admin', async () => {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    page.on(
      'console',
      (message) =>
        message.type() === 'error' && !/status of 40[13]/.test(message.text()) && errors.push(message.text()),
    );
    await page.goto(`${base}/admin`);
    await page.waitForSelector('html[data-state="unauthorized"]');
    expect(await page.textContent('#notice')).toBe(
      '401 Not signed in. No API key: send Authorization: Bearer <key> or X-API-Key: <key>. The admin API needs an admin key or token.',
    );
    expect(await page.isVisible('#key-form')).toBe(true);

    await page.fill('#key', DESK_KEYS.reader);
    await page.click('#key-form button[type="submit"]');
    await page.waitForSelector('html[data-state="forbidden"]');
    expect(await page.textContent('#notice')).toBe(
      '403 Forbidden. "desk-reader" is not an administrator: the admin API needs the role "admin" or the scope "mcp:admin".',
    );
    expect(await page.isVisible('#key-form')).toBe(true);
    expect(await page.textContent('#stats-rows')).toBe(''); // nothing was shown
    await mkdir(OUTPUT, { recursive: true });
    await page.screenshot({ path: join(OUTPUT, 'admin-dashboard-403.png') });
    expect(errors).toEqual([]);
  });

  it('shows, with the admin key, the calls and errors per tool that were made, as the API reports them', async () => {
    await page.fill('#key', DESK_KEYS.admin);
    await page.click('#key-form button[type="submit"]');
    await page.waitForSelector('html[data-state="ok"]');
    expect(await page.isHidden('#key-form')).toBe(true);
    expect(await page.isHidden('#notice')).toBe(true);
    expect(await page.evaluate(() => sessionStorage.getItem('mcp-admin-key'))).toBe(DESK_KEYS.admin);
    expect(await page.textContent('#principal')).toBe('signed in as desk-admin');
    expect(await page.textContent('#overall')).toBe('ok');
    // Which replica answered (MCP_REPLICA), in the header and in the host's health row.
    expect(await page.textContent('#replica')).toBe('replica desk-eu-1');
    expect(await page.textContent('#health-rows tr[data-component="host"]')).toContain(
      'replica desk-eu-1 · phase ready',
    );

    // One more call, then the page's own refresh must show it.
    await call(admin, 'search_tickets', { status: 'open', limit: 5 }, false);
    const seen = await refreshes();
    await page.waitForFunction(
      (after) => Number(document.documentElement.getAttribute('data-refreshes')) > after,
      seen,
      { timeout: 15_000 },
    );

    const api = await apiStats();
    for (const [tool, counts] of expected) {
      const fromApi = api.find((entry) => entry.kind === 'tool' && entry.name === tool)!;
      expect({ tool, calls: fromApi.calls, errors: fromApi.errors }).toEqual({ tool, ...counts });
      expect({ tool, ...(await shownRow(`tool:${tool}`)) }).toEqual({ tool, ...counts });
    }
    expect(expected.get('search_tickets')).toEqual({ calls: 5, errors: 0 });
    expect(expected.get('get_ticket')).toEqual({ calls: 3, errors: 2 });
    // Tools nobody called are listed with zeros.
    expect(await shownRow('tool:close_ticket')).toEqual({ calls: 0, errors: 0 });
    expect(await shownRow('resource:kb://articles')).toEqual({ calls: 1, errors: 0 });
    expect(await page.textContent('#stats-rows tr[data-entry="tool:get_ticket"] [data-col="errorRate"]')).toBe(
      '66.7 %',
    );

    expect(await page.textContent('#session-count')).toBe('2');
    expect(
      await page.$$eval('#session-rows tr[data-session] td:nth-child(2)', (cells) =>
        cells.map((cell) => cell.textContent).sort(),
      ),
    ).toEqual(['desk-admin', 'desk-reader']);
    expect(await page.textContent('#card-sessions')).toBe('2');
    // Numbers are right-aligned.
    expect(await page.$eval('#stats-rows [data-col="calls"]', (cell) => getComputedStyle(cell).textAlign)).toBe(
      'right',
    );
  }, 30_000); // it waits for the page's own refresh, every 5 s

  it('shows recent audit records, filtered, and the catalog with its throttling', async () => {
    await page.waitForFunction(() => document.querySelectorAll('#audit-rows tr[data-record]').length > 0);
    await page.fill('#f-target', 'get_ticket');
    await page.selectOption('#f-outcome', 'tool_error');
    await page.click('#audit-filter button[type="submit"]');
    await page.waitForFunction(() => {
      const rows = [...document.querySelectorAll('#audit-rows tr[data-record]')];
      return rows.length === 2 && rows.every((row) => row.textContent!.includes('get_ticket'));
    });
    expect(
      await page.$$eval('#audit-rows tr[data-record] td:nth-child(5)', (cells) =>
        cells.map((cell) => cell.textContent),
      ),
    ).toEqual(['tool_error', 'tool_error']);
    expect(
      await page.$$eval('#audit-rows tr[data-record] td:nth-child(2)', (cells) =>
        cells.map((cell) => cell.textContent),
      ),
    ).toEqual(['desk-admin', 'desk-admin']);
    await page.click('#audit-clear');
    await page.waitForFunction(() => document.querySelectorAll('#audit-rows tr[data-record]').length > 2);

    expect(await page.textContent('#tool-rows tr[data-tool="close_ticket"]')).toContain('destructive');
    expect(await page.textContent('#tool-rows tr[data-tool="search_tickets"]')).toContain('default: 120 / 60 s');
    expect(await page.textContent('#health-rows')).toContain('audit:jsonl');
  });

  it('lists the calls waiting for approval; an administrator may not approve a call of their own', async () => {
    const closing = { ticketId: 'T-2003', resolution: 'Replaced the faulty router.' };
    const held = (await admin.callTool({ name: 'close_ticket', arguments: closing })) as CallToolResult;
    expect(held.isError).toBe(true);
    await page.click('#refresh');
    await page.waitForSelector('#approval-rows tr[data-status="pending"]');
    expect(await page.textContent('#approval-count')).toBe('1 waiting');
    const row = '#approval-rows tr[data-status="pending"]';
    expect(await page.textContent(`${row} td:nth-child(2)`)).toBe('desk-admin · e2e-client');
    expect(await page.textContent(`${row} td:nth-child(3)`)).toBe('close_ticket');
    expect(JSON.parse((await page.textContent(`${row} pre`))!)).toEqual(closing);
    await page.click(`${row} button[data-decide="approve"]`);
    await page.waitForFunction(
      () =>
        !document.querySelector('#notice').hidden &&
        document.querySelector('#notice').textContent.startsWith('Not approved:'),
    );
    expect(await page.textContent('#notice')).toBe(
      'Not approved: "desk-admin" may not decide a request of its own: another approver must (approvals.allowSelfApproval is off).',
    );
    expect(await page.isVisible('#stats-panel')).toBe(true); // the dashboard stays usable
  });

  it('lets an approver who is no administrator decide it, from the approvals alone; the call then runs', async () => {
    await page.click('#forget');
    await page.waitForSelector('html[data-state="unauthorized"]');
    await page.fill('#key', DESK_KEYS.approver);
    await page.click('#key-form button[type="submit"]');
    await page.waitForSelector('html[data-mode="approver"][data-state="ok"]');
    expect(await page.isVisible('#approvals-panel')).toBe(true);
    expect(await page.isHidden('#stats-panel')).toBe(true);
    expect(await page.textContent('#principal')).toBe('signed in as desk-approver (approver)');
    expect(await page.textContent('#replica')).toBe(''); // the approvals API does not name it
    const row = '#approval-rows tr[data-status="pending"]';
    await page.fill(`${row} input[data-reason]`, 'router swap confirmed');
    await page.click(`${row} button[data-decide="approve"]`);
    await page.waitForSelector('#approval-rows tr[data-status="approved"]');
    expect(await page.textContent('#approval-rows tr[data-status="approved"] td:nth-child(7)')).toBe(
      'desk-approver: router swap confirmed',
    );
    const closed = await admin.callTool({
      name: 'close_ticket',
      arguments: { ticketId: 'T-2003', resolution: 'Replaced the faulty router.' },
    });
    expect(closed.structuredContent).toEqual({ id: 'T-2003', status: 'closed', alreadyClosed: false });
    await mkdir(OUTPUT, { recursive: true });
    await page.screenshot({ path: join(OUTPUT, 'admin-approvals.png'), fullPage: true });
  });

  it('opens one request from its link, for the person it was sent to', async () => {
    await admin.callTool({
      name: 'close_ticket',
      arguments: { ticketId: 'T-2004', resolution: 'Duplicate of T-2003.' },
    });
    const listed = (await (
      await fetch(`${base}/admin/api/approvals?status=pending`, { headers: { 'x-api-key': DESK_KEYS.approver } })
    ).json()) as { approvals: { id: string }[] };
    await page.goto(`${base}/admin#approval=${listed.approvals[0].id}`);
    await page.waitForSelector('html[data-mode="approval"][data-state="ok"]');
    expect(await page.$$eval('#approval-rows tr[data-approval]', (rows) => rows.length)).toBe(1);
    await page.click('#approval-rows button[data-decide="deny"]');
    await page.waitForSelector('#approval-rows tr[data-status="denied"]');
    const denied = (await admin.callTool({
      name: 'close_ticket',
      arguments: { ticketId: 'T-2004', resolution: 'Duplicate of T-2003.' },
    })) as CallToolResult;
    expect((denied.content[0] as { text: string }).text).toMatch(/^"close_ticket" was denied by desk-approver\./);
    // Back to the full dashboard for the screenshot, with the administrator's key.
    await page.evaluate((key) => sessionStorage.setItem('mcp-admin-key', key), DESK_KEYS.admin);
    await page.goto(`${base}/admin`);
    await page.waitForSelector('html[data-mode="admin"][data-state="ok"]');
  });

  it('draws the last hour (calls, failures, p50/p95 of the busiest tools) and the upstreams added at run time, loading nothing from elsewhere', async () => {
    await page.waitForSelector('#chart-calls polyline');
    const history = (await (
      await fetch(`${base}/admin/api/history`, { headers: { authorization: `Bearer ${DESK_KEYS.admin}` } })
    ).json()) as { replica: string; total: { calls: number[]; errors: number[] }; tools: { name: string }[] };
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    const calls = [...expected.values()].reduce((total, count) => total + count.calls, 0);
    // Every tool call so far, this minute or the last (the reader's denied call counts too).
    expect(sum(history.total.calls)).toBeGreaterThanOrEqual(calls);
    expect(sum(history.total.errors)).toBeGreaterThanOrEqual(5);
    expect(history.replica).toBe('desk-eu-1');
    // The chart's scale holds the busiest minute, in calls per second.
    const drawn = Number(await page.getAttribute('#chart-calls', 'data-max'));
    expect(drawn).toBeCloseTo(Math.max(...history.total.calls) / 60, 5);
    expect(
      await page.$$eval('#chart-latency polyline, #chart-latency circle', (lines) => lines.length),
    ).toBeGreaterThanOrEqual(2);
    const legend = await page.$$eval('#chart-legend li', (items) => items.map((item) => item.textContent));
    expect(legend).toEqual(history.tools.slice(0, 3).map((tool) => `${tool.name} (p50, p95 dashed)`));
    expect(await page.textContent('#charts-meta')).toContain('replica desk-eu-1');

    expect(await page.isVisible('#servers-panel')).toBe(true);
    const row = await page.$eval('#server-rows tr[data-upstream="crm"]', (tr) =>
      Array.from(tr.querySelectorAll('td')).map((cell) => (cell as { textContent: string }).textContent),
    );
    expect(row.slice(0, 4)).toEqual(['crm', `http://127.0.0.1:${upstream.port}/mcp`, 'up', 'closed']);
    expect(Number(row[5])).toBeGreaterThanOrEqual(2);
    // Version 1 is the desk's seed (its read-only composed server); crm made version 2.
    expect(await page.textContent('#servers-meta')).toMatch(/^version 2, changed by desk-admin/);
    // The page's policy allows its own origin only, and nothing of the page broke it.
    const response = await fetch(`${base}/admin`);
    expect(response.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    expect(violations).toEqual([]);
    await mkdir(OUTPUT, { recursive: true });
    const charts = join(OUTPUT, 'admin-charts.png');
    const panels = await page.$('#charts-panel');
    await panels!.screenshot({ path: charts });
    const servers = join(OUTPUT, 'admin-servers.png');
    await (await page.$('#servers-panel'))!.screenshot({ path: servers });
    if (process.env.UPDATE_DOCS_SCREENSHOT === '1') {
      await copyFile(charts, DOCS_CHARTS);
      await copyFile(servers, DOCS_SERVERS);
    }
  });

  it('saves a screenshot', async () => {
    await mkdir(OUTPUT, { recursive: true });
    const file = join(OUTPUT, 'admin-dashboard.png');
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: file, fullPage: true });
    if (process.env.UPDATE_DOCS_SCREENSHOT === '1') await copyFile(file, DOCS_SCREENSHOT);
  });
});
