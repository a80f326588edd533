import { mkdtempSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from './support/chromium';
import { connectSdkV1 } from './support/era-clients';
import { DESK_KEYS } from './support/desk-host';
import { startDeskProcess, type DeskProcess } from './support/desk-process';
import { startRedisServer, type RedisServer } from './support/redis-server';
import { waitForAsync } from './support/wait-for';

jest.setTimeout(60_000);

const OUTPUT = join(__dirname, '..', 'test-output');
const DOCS_CHARTS_REPLICAS = join(__dirname, '..', 'docs', 'admin-charts-replicas.png');

interface Chart {
  replica: string;
  publishedAt?: number;
  replicas?: string[];
  total: { calls: number[] };
  tools: { name: string; calls: number[] }[];
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const callsOf = (chart: Chart, tool: string) => sum(chart.tools.find((t) => t.name === tool)?.calls ?? []);

/**
 * The dashboard's charts per replica: two desk replicas sharing a real Redis, each serving calls
 * of its own; the admin API of either answers the charts of each (`?replica=`), as that replica
 * counted them, and the list of replicas; in chromium, the page of one draws the other's charts
 * once chosen (docs/admin-charts-replicas.png with UPDATE_DOCS_SCREENSHOT=1).
 */
describe('the charts of each replica', () => {
  const dir = mkdtempSync(join(tmpdir(), 'charts-'));
  let redis: RedisServer;
  const desks = new Map<string, DeskProcess>();
  let browser: Browser | undefined;

  const base = (replica: string) => `http://127.0.0.1:${desks.get(replica)!.port}`;
  const chart = async (at: string, replica?: string) => {
    const response = await fetch(`${base(at)}/admin/api/history${replica ? `?replica=${replica}` : ''}`, {
      headers: { 'x-api-key': DESK_KEYS.admin },
    });
    return { status: response.status, body: (await response.json()) as Chart };
  };
  const callOn = async (replica: string, tool: string, args: Record<string, unknown>, times: number) => {
    const session = await connectSdkV1(`${base(replica)}/mcp`, `charts-${replica}`, {
      headers: { 'x-api-key': DESK_KEYS.admin },
    });
    for (let i = 0; i < times; i++) await session.client.callTool({ name: tool, arguments: args });
    await session.client.close();
  };

  beforeAll(async () => {
    redis = await startRedisServer();
    for (const replica of ['desk-a', 'desk-b'])
      desks.set(
        replica,
        await startDeskProcess({
          AUTH_MODE: 'apiKey',
          MCP_API_KEYS_FILE: 'config/api-keys.example.json',
          REDIS_URL: redis.url,
          MCP_REPLICA: replica,
          AUDIT_FILE: join(dir, `${replica}.jsonl`),
          AUDIT_CHAIN: replica,
          VIRTUAL_SERVERS_FILE: join(dir, `${replica}.virtual-servers.json`),
        }),
      );
    await callOn('desk-a', 'search_customers', { query: 'contoso' }, 3);
    await callOn('desk-b', 'get_ticket', { ticketId: 'T-2001' }, 2);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    for (const desk of desks.values()) await desk.stop();
    await redis?.stop();
  });

  it('answers, on either replica, the charts of each as that replica counted its calls', async () => {
    // Published every refresh period (5 s): wait for desk-a's calls to reach desk-b.
    await waitForAsync(async () => callsOf((await chart('desk-b', 'desk-a')).body, 'search_customers') === 3, 15_000);
    const aThroughB = (await chart('desk-b', 'desk-a')).body;
    const aItself = (await chart('desk-a')).body;
    expect(aThroughB).toMatchObject({ replica: 'desk-a', replicas: ['desk-a', 'desk-b'] });
    expect(Date.now() - aThroughB.publishedAt!).toBeLessThan(15_000);
    expect(sum(aThroughB.total.calls)).toBe(sum(aItself.total.calls));
    expect(callsOf(aThroughB, 'get_ticket')).toBe(0);
    // Each counts its own: desk-b's own charts have its calls, not desk-a's.
    const bItself = (await chart('desk-b')).body;
    expect(bItself).toMatchObject({ replica: 'desk-b', replicas: ['desk-a', 'desk-b'] });
    expect(bItself.publishedAt).toBeUndefined();
    expect(callsOf(bItself, 'get_ticket')).toBe(2);
    expect(callsOf(bItself, 'search_customers')).toBe(0);
    await waitForAsync(async () => callsOf((await chart('desk-a', 'desk-b')).body, 'get_ticket') === 2, 15_000);
    const missing = await chart('desk-a', 'desk-z');
    expect(missing.status).toBe(404);
  });

  it('draws, in chromium, the charts of the replica chosen on the page of another', async () => {
    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content[- ]Security[- ]Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(`${base('desk-b')}/admin`);
    await page.fill('#key', DESK_KEYS.admin);
    await page.click('#key-form button[type="submit"]');
    await page.waitForSelector('#chart-replica-label:not([hidden])');
    expect(
      await page.$$eval('#chart-replica option', (options) => options.map((o) => (o as { value: string }).value)),
    ).toEqual(['desk-a', 'desk-b']);
    expect(await page.inputValue('#chart-replica')).toBe('desk-b');
    expect(await page.$$eval('#chart-legend li', (items) => items.map((item) => item.textContent))).toEqual([
      'get_ticket (p50, p95 dashed)',
    ]);
    await page.selectOption('#chart-replica', 'desk-a');
    await page.waitForFunction(() => {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the page's own DOM, untyped here.
      const meta = (globalThis as any).document.querySelector('#charts-meta');
      return meta && meta.textContent.includes('on replica desk-a, as it published them');
    });
    expect(await page.$$eval('#chart-legend li', (items) => items.map((item) => item.textContent))).toEqual([
      'search_customers (p50, p95 dashed)',
    ]);
    expect(Number(await page.getAttribute('#chart-calls', 'data-max'))).toBeGreaterThan(0);
    expect(violations).toEqual([]);
    await mkdir(OUTPUT, { recursive: true });
    const file = join(OUTPUT, 'admin-charts-replicas.png');
    await (await page.$('#charts-panel'))!.screenshot({ path: file });
    if (process.env.UPDATE_DOCS_SCREENSHOT === '1') await copyFile(file, DOCS_CHARTS_REPLICAS);
  });
});
