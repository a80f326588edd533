import { mkdtempSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './support/chromium';
import { connectSdkV1 } from './support/era-clients';
import { DESK_KEYS } from './support/desk-host';
import { startDeskProcess, type DeskProcess } from './support/desk-process';

jest.setTimeout(60_000);

const OUTPUT = join(__dirname, '..', 'test-output');
const DOCS_MANAGE = join(__dirname, '..', 'docs', 'admin-manage.png');
const DOCS_MANAGE_ERRORS = join(__dirname, '..', 'docs', 'admin-manage-errors.png');

/**
 * Managing virtual servers from the admin dashboard in chromium: forms that post to the admin
 * API add an upstream, a REST API and a composed virtual server; the validation's answer is shown
 * at each field it names; a row is edited and removed; what was saved is served (an SDK client at
 * the composed server's path). Screenshots go to test-output/ (and, with UPDATE_DOCS_SCREENSHOT=1,
 * to docs/admin-manage.png and docs/admin-manage-errors.png).
 */
describe('admin dashboard: managing virtual servers in chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'manage-'));
  let upstream: DeskProcess;
  let desk: DeskProcess;
  let base: string;
  let browser: Browser;
  let page: Page;
  const violations: string[] = [];
  const pageErrors: string[] = [];

  const form = (kind: string) => `#form-${kind}`;
  const fillForm = async (kind: string, values: Record<string, string>) => {
    for (const [name, value] of Object.entries(values)) await page.fill(`${form(kind)} [name="${name}"]`, value);
  };
  const save = async (kind: string) => {
    const answered = page.waitForResponse((response) => response.request().method() === 'POST');
    await page.click(`${form(kind)} button[type="submit"]`);
    return (await answered).status();
  };
  const row = (key: string) => `#manage-rows tr[data-managed="${key}"]`;
  const fieldError = (kind: string, field: string) =>
    page.textContent(`${form(kind)} .field-error[data-for="${field}"]`);
  const composed = async () =>
    (
      (await (
        await fetch(`${base}/admin/api/servers/composed`, { headers: { 'x-api-key': DESK_KEYS.admin } })
      ).json()) as { servers: { name: string; title?: string }[] }
    ).servers;

  beforeAll(async () => {
    upstream = await startDeskProcess({ VIRTUAL_SERVERS: 'off', AUDIT_SINK: 'off' });
    desk = await startDeskProcess({
      AUTH_MODE: 'apiKey',
      MCP_API_KEYS_FILE: 'config/api-keys.example.json',
      AUDIT_FILE: join(dir, 'desk.jsonl'),
      VIRTUAL_SERVERS_FILE: join(dir, 'virtual-servers.json'),
      VIRTUAL_SERVERS_ALLOW_HOSTS: '127.0.0.1',
    });
    base = `http://127.0.0.1:${desk.port}`;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    page.on('console', (message) => {
      if (/Content[- ]Security[- ]Policy/i.test(message.text())) violations.push(message.text());
    });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${base}/admin`);
    await page.fill('#key', DESK_KEYS.admin);
    await page.click('#key-form button[type="submit"]');
    await page.waitForSelector('html[data-state="ok"]');
    await page.waitForSelector(row('servers:desk-readonly'));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await desk?.stop();
    await upstream?.stop();
  });

  it('shows each problem of a refused server at its field, and saves nothing', async () => {
    await fillForm('servers', {
      name: 'finance',
      path: '/admin',
      select: '[{ "from": "upstream", "name": "crm", "entries": ["crm__get_*"] }]',
      'limits.callsPerMinute': '0',
    });
    expect(await save('servers')).toBe(422);
    expect(await fieldError('servers', 'path')).toBe('must be under the host\'s MCP path /mcp — e.g. "/mcp/finance"');
    expect(await fieldError('servers', 'select')).toBe(
      '[0].name: no upstream is named "crm" (the composed server "finance" selects it) — add the upstream "crm" first, or select one there is',
    );
    expect(await fieldError('servers', 'limits')).toBe(
      'callsPerMinute: must be a positive integer — e.g. 120, or leave it out for no limit of its own',
    );
    expect(await page.getAttribute(`${form('servers')} [name="path"]`, 'aria-invalid')).toBe('true');
    expect(await page.textContent('#manage-status')).toBe('Not saved: 3 problem(s), shown at their fields.');
    expect((await composed()).map((server) => server.name)).toEqual(['desk-readonly']);
    await mkdir(OUTPUT, { recursive: true });
    const file = join(OUTPUT, 'admin-manage-errors.png');
    await (await page.$(form('servers')))!.screenshot({ path: file });
    if (process.env.UPDATE_DOCS_SCREENSHOT === '1') await copyFile(file, DOCS_MANAGE_ERRORS);
  });

  it('adds an upstream, a REST API and a composed server of theirs from the forms; the server is served', async () => {
    await fillForm('upstreams', {
      name: 'crm',
      'transport.url': `http://127.0.0.1:${upstream.port}/mcp`,
      prefix: 'crm',
      scopes: 'tickets:read',
    });
    expect(await save('upstreams')).toBe(200);
    await page.waitForSelector(row('upstreams:crm'));
    // The API's document is read before it is stored: a wrong URL is shown at its field.
    await fillForm('apis', {
      name: 'deskb',
      document: `http://127.0.0.1:${upstream.port}/nothing-here`,
      prefix: 'deskb_',
    });
    expect(await save('apis')).toBe(422);
    expect(await fieldError('apis', 'document')).toMatch(/^the document .*404/);
    await fillForm('apis', {
      document: `http://127.0.0.1:${upstream.port}/docs-json`,
      baseUrl: `http://127.0.0.1:${upstream.port}`,
    });
    expect(await save('apis')).toBe(200);
    await page.waitForSelector(row('apis:deskb'));
    // The server refused above, fixed: its path, its limit, and the API too.
    await fillForm('servers', {
      path: '/mcp/finance',
      select:
        '[{ "from": "upstream", "name": "crm", "entries": ["crm__get_*"] }, { "from": "api", "name": "deskb", "entries": ["deskb_get*"] }]',
      'limits.callsPerMinute': '120',
    });
    expect(await save('servers')).toBe(200);
    await page.waitForSelector(row('servers:finance'));
    expect(await page.textContent(`${form('servers')} .field-error[data-for="path"]`)).toBe('');

    const client = await connectSdkV1(`${base}/mcp/finance`, 'finance', { headers: { 'x-api-key': DESK_KEYS.admin } });
    const tools = (await client.client.listTools()).tools.map((tool) => tool.name);
    await client.client.close();
    expect(tools).toEqual(expect.arrayContaining(['crm__get_ticket', 'deskb_getCustomer']));
    expect(tools.every((name) => name.startsWith('crm__get_') || name.startsWith('deskb_get'))).toBe(true);
  });

  it('edits a row in its form, and removes rows (refused while a server selects it, with why)', async () => {
    await page.click(`${row('servers:finance')} button[data-manage="edit"]`);
    expect(await page.inputValue(`${form('servers')} [name="path"]`)).toBe('/mcp/finance');
    await fillForm('servers', { title: 'Finance desk' });
    expect(await save('servers')).toBe(200);
    await page.waitForFunction(() =>
      document.querySelector('#manage-rows tr[data-managed="servers:finance"]')?.textContent.includes('Finance desk'),
    );
    expect((await composed()).find((server) => server.name === 'finance')?.title).toBe('Finance desk');

    await mkdir(OUTPUT, { recursive: true });
    const file = join(OUTPUT, 'admin-manage.png');
    // Below the page's sticky header: the panel scrolled to just under it, then shot where it is.
    await page.evaluate(() => {
      const panel = document.querySelector('#manage-panel');
      window.scrollTo(0, panel.getBoundingClientRect().top + window.scrollY - 70);
    });
    const box = (await (await page.$('#manage-panel'))!.boundingBox())!;
    await page.screenshot({ path: file, clip: box });
    if (process.env.UPDATE_DOCS_SCREENSHOT === '1') await copyFile(file, DOCS_MANAGE);

    await page.click(`${row('apis:deskb')} button[data-manage="remove"]`);
    await page.waitForFunction(() => document.querySelector('#manage-status')?.textContent.startsWith('Not removed'));
    expect(await page.textContent('#manage-status')).toMatch(
      /API "deskb": is selected by the composed server "finance" \(servers\[\d\]\.select\[1\]\)/,
    );
    await page.click(`${row('servers:finance')} button[data-manage="remove"]`);
    await page.waitForSelector(row('servers:finance'), { state: 'detached' });
    await page.click(`${row('apis:deskb')} button[data-manage="remove"]`);
    await page.waitForSelector(row('apis:deskb'), { state: 'detached' });
    const gone = await fetch(`${base}/mcp/finance`, {
      method: 'POST',
      headers: {
        'x-api-key': DESK_KEYS.admin,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{}',
    });
    expect(gone.status).toBe(404);
    expect(violations).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});

// Globals of the page, for the callbacks playwright runs in the browser (the project has no DOM lib).
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- untyped on purpose: no DOM types to give them.
declare const document: any, window: any;
