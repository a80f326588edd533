import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { CallToolResult, Client, Tool } from '@modelcontextprotocol/client';
import { type Browser, type Page } from 'playwright-core';
import { CHROMIUM, launchChromium } from './support/chromium';
import { McpModule } from '#libs/hosting';
import { appHostPage } from './support/app-host-page';
import { connectSdkV2, type ConnectedV2 } from './support/era-clients';
import { baseUrlOf, startTestApp } from './support/fixture-app';

const UI = 'io.modelcontextprotocol/ui';
const MIME = 'text/html;profile=mcp-app';
/** The official example MCP App server (vanilla JS): a tool get-time and its view, over stdio. */
const BASIC = join(
  __dirname,
  '..',
  'node_modules',
  '@modelcontextprotocol',
  'server-basic-vanillajs',
  'dist',
  'index.js',
);
const OUTPUT = join(__dirname, '..', 'test-output');

interface HostWindow {
  renderView(view: unknown): Promise<void>;
  sendResult(id: string, result: unknown): Promise<void>;
}
declare const window: HostWindow;

jest.setTimeout(30_000);

/**
 * An example MCP App server (`@modelcontextprotocol/server-basic-vanillajs`) behind the gateway:
 * its `ui://` view keeps a `ui://` URI after namespacing (the upstream's name goes into the
 * authority), its tool names the view so, the view's document and metadata pass as the server
 * sent them, and in chromium, framed by the official AppBridge with the SDK v2 client on the
 * gateway, the view renders the tool's result and calls the server's tool again — by its own name
 * (`get-time`), the upstream being served under its default prefix (`basic__get-time`).
 */
describe('an example MCP App server behind the gateway keeps its view working', () => {
  let gateway: INestApplication;
  let upstream: ConnectedV2;
  let client: Client;
  let url: string;
  let browser: Browser;
  let page: Page;
  /** The names the view's calls gave, as the bridge relayed them. */
  const viewCalls: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium`);
    gateway = await startTestApp({
      imports: [
        McpModule.forRoot({
          name: 'apps-gateway',
          version: '1.0.0',
          gateway: {
            upstreams: [
              {
                // Prefixed as every upstream by default (basic__get-time): its view still calls get-time.
                name: 'basic',
                transport: { type: 'stdio', command: process.execPath, args: [BASIC, '--stdio'] },
              },
            ],
          },
        }),
      ],
    });
    url = `${await baseUrlOf(gateway)}/mcp`;
    upstream = await connectSdkV2(url, 'apps-gateway-client', 'auto', { extensions: { [UI]: { mimeTypes: [MIME] } } });
    client = upstream.client;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 640, height: 900 } });
    await page.exposeFunction('hostCallTool', (_principal: string, params: { name: string }) => {
      viewCalls.push(params.name);
      return client.callTool(params as never);
    });
    await page.setContent(await appHostPage());
  });

  afterAll(async () => {
    await browser?.close();
    await upstream?.client.close();
    await gateway?.close();
  });

  it('keeps the view a ui:// URI, names it so in the tool, and passes the document and its metadata through', async () => {
    expect(client.getServerCapabilities()?.extensions?.[UI]).toEqual({ mimeTypes: [MIME] });
    const tool = (await client.listTools()).tools.find((candidate) => candidate.name === 'basic__get-time') as Tool;
    expect(tool._meta).toMatchObject({
      ui: { resourceUri: 'ui://basic+get-time/mcp-app.html' },
      'ui/resourceUri': 'ui://basic+get-time/mcp-app.html',
    });
    const resources = (await client.listResources()).resources;
    expect(resources.map(({ uri, mimeType }) => ({ uri, mimeType }))).toEqual([
      { uri: 'ui://basic+get-time/mcp-app.html', mimeType: MIME },
    ]);
    const [contents] = (await client.readResource({ uri: 'ui://basic+get-time/mcp-app.html' })).contents as unknown as [
      { uri: string; mimeType: string; text: string },
    ];
    expect(contents.uri).toBe('ui://basic+get-time/mcp-app.html');
    expect(contents.mimeType).toBe(MIME);
    expect(contents.text).toBe(await readFile(join(BASIC, '..', 'mcp-app.html'), 'utf8'));
  });

  it('renders the view in chromium, which calls the server’s tool by its own name through the gateway', async () => {
    const tool = (await client.listTools()).tools.find((candidate) => candidate.name === 'basic__get-time') as Tool;
    const [contents] = (await client.readResource({ uri: 'ui://basic+get-time/mcp-app.html' })).contents as unknown as [
      { text: string },
    ];
    const view = JSON.parse(
      JSON.stringify({ id: 'basic', caption: 'get-time, through the gateway', html: contents.text, tool, input: {} }),
    ) as Record<string, unknown>;
    await page.evaluate((value) => window.renderView(value), view);
    const result = (await client.callTool({ name: 'basic__get-time', arguments: {} })) as CallToolResult;
    const first = (result.structuredContent as { time: string }).time;
    await page.evaluate(({ id, value }) => window.sendResult(id, value), {
      id: 'basic',
      value: JSON.parse(JSON.stringify(result)) as Record<string, unknown>,
    });
    const frame = page.frameLocator('#basic');
    await waitForText(
      () => frame.locator('#server-time').textContent(),
      (text) => text === first,
    );
    await frame.locator('#get-time-btn').click();
    await waitForText(
      () => frame.locator('#server-time').textContent(),
      (text) => /^\d{4}-\d\d-\d\dT/.test(text) && text !== first,
    );
    await mkdir(OUTPUT, { recursive: true });
    await page.locator('#basic').screenshot({ path: join(OUTPUT, 'apps-gateway-basic.png') });
    // The view's own call named get-time, as the server wrote it: the gateway resolved it.
    expect(viewCalls).toContain('get-time');
  });

  it('resolves a tool’s own name only for a client that renders views: to the others it is unknown', async () => {
    const plain = await connectSdkV2(url, 'apps-gateway-plain', 'auto');
    try {
      expect((await plain.client.listTools()).tools.map(({ name }) => name)).toEqual(['basic__get-time']);
      expect(
        ((await plain.client.callTool({ name: 'basic__get-time', arguments: {} })) as CallToolResult).isError,
      ).toBeFalsy();
      await expect(plain.client.callTool({ name: 'get-time', arguments: {} })).rejects.toThrow(
        /Unknown tool: get-time/,
      );
    } finally {
      await plain.client.close();
    }
  });
});

/**
 * Two upstreams of one server behind the gateway: a view's own name (`get-time`) could mean either
 * tool, so the gateway runs neither and says which names to call.
 */
describe('a view’s own tool name that two upstreams share', () => {
  let gateway: INestApplication;
  let connected: ConnectedV2;

  beforeAll(async () => {
    const basic = (name: string) => ({
      name,
      transport: { type: 'stdio' as const, command: process.execPath, args: [BASIC, '--stdio'] },
    });
    gateway = await startTestApp({
      imports: [
        McpModule.forRoot({
          name: 'apps-gateway-two',
          version: '1.0.0',
          gateway: { upstreams: [basic('basic'), basic('clock')] },
        }),
      ],
    });
    connected = await connectSdkV2(`${await baseUrlOf(gateway)}/mcp`, 'apps-gateway-two', 'auto', {
      extensions: { [UI]: { mimeTypes: [MIME] } },
    });
  });
  afterAll(async () => {
    await connected?.client.close();
    await gateway?.close();
  });

  it('is refused as ambiguous, naming both tools; each runs by its gateway name', async () => {
    const { client } = connected;
    await expect(client.callTool({ name: 'get-time', arguments: {} })).rejects.toThrow(
      /Unknown tool: get-time \(ambiguous: basic__get-time, clock__get-time; call one of them\)/,
    );
    for (const name of ['basic__get-time', 'clock__get-time'])
      expect(((await client.callTool({ name, arguments: {} })) as CallToolResult).isError).toBeFalsy();
  });
});

async function waitForText(read: () => Promise<string | null>, ok: (text: string) => boolean): Promise<void> {
  const until = Date.now() + 10_000;
  let text = '';
  while (Date.now() < until) {
    text = (await read()) ?? '';
    if (ok(text)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the view shows "${text}"`);
}
