import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Injectable, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, Page } from 'playwright-core';
import { McpModule, McpTool } from 'nest-mcp-host';
import { launchChromium, signInInBrowser, startCompanyIdp, type CompanyIdp } from './support/company-idp';
import { freePort } from './support/free-port';
import { TestOAuthProvider } from './support/oauth-test-client';

// Globals of the page, for the callbacks playwright runs in the browser (the project has no DOM lib).
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- untyped on purpose: no DOM types to give them.
declare const document: any;

jest.setTimeout(60_000);

const HOST_SECRET = 'desk-host-secret-0123456789abcdefghijkl';
const OUTPUT = join(__dirname, '..', 'test-output');
const DOCS_SCREENSHOT = join(__dirname, '..', 'docs', 'admin-oauth.png');

@Injectable()
class DeskTools {
  @McpTool({ description: 'Says who is calling' })
  whoami() {
    return { ok: true };
  }
}

/**
 * The dashboard's Sign-ins panel in Debian's chromium: people sign in through the authorization
 * server facade (the company IdP is oidc-provider, its login page driven in the same browser), an
 * administrator whose IdP app role maps to `admin` opens the dashboard with their own access
 * token, revokes one sign-in and every sign-in of a person from the page — their refresh tokens
 * then fail at the token endpoint — and rotates the signing key.
 */
describe('admin dashboard: the sign-ins of the authorization server', () => {
  let idp: CompanyIdp;
  let app: INestApplication;
  let browser: Browser;
  let page: Page;
  let issuer: string;
  let callbackUrl: string;
  const people = new Map<string, TestOAuthProvider>();

  const refresh = (provider: TestOAuthProvider) =>
    fetch(`${issuer}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: (provider.tokens() as { refresh_token: string }).refresh_token,
        client_id: (provider.clientInformation() as { client_id: string }).client_id,
      }),
    });

  /** The SDK v1 client's OAuth provider: registration, PKCE, the person at the IdP's login page, the code redeemed. */
  async function signIn(login: string): Promise<TestOAuthProvider> {
    const provider = new TestOAuthProvider(callbackUrl);
    const url = new URL(`${issuer}/mcp`);
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider as never });
    await expect(new Client({ name: 'e2e', version: '1' }).connect(transport)).rejects.toThrow(/nauthorized/);
    const landed = await signInInBrowser(browser, provider.authorizationUrl!.href, login, callbackUrl);
    await transport.finishAuth(landed.searchParams.get('code')!);
    people.set(login, provider);
    return provider;
  }

  beforeAll(async () => {
    const port = await freePort();
    issuer = `http://127.0.0.1:${port}`;
    callbackUrl = `http://127.0.0.1:${await freePort()}/callback`;
    [idp, browser] = await Promise.all([
      startCompanyIdp({
        clients: [
          {
            client_id: 'desk-host',
            client_secret: HOST_SECRET,
            redirect_uris: [`${issuer}/oauth/callback`],
            grant_types: ['authorization_code', 'refresh_token'],
          },
        ],
        accounts: {
          carol: { roles: ['Desk.Admin'] },
          bob: { roles: ['Desk.Agent'] },
          alice: { roles: ['Desk.Agent'] },
        },
      }),
      launchChromium(),
    ]);
    const moduleRef = await Test.createTestingModule({
      imports: [
        McpModule.forRoot({
          name: 'desk',
          version: '1.0.0',
          auth: {
            mode: 'oauth',
            resource: `${issuer}/mcp`,
            scopesSupported: ['tickets:read'],
            claims: {
              roles: { from: ['roles'], map: { 'Desk.Agent': ['agent'], 'Desk.Admin': ['admin'] } },
              scopes: { from: ['roles'], map: { 'Desk.Agent': ['tickets:read'], 'Desk.Admin': ['tickets:read'] } },
            },
          } as never,
          authorizationServer: { idp: { issuer: idp.issuer, clientId: 'desk-host', clientSecret: HOST_SECRET } },
        }),
      ],
      providers: [DeskTools],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(port, '127.0.0.1');
    for (const login of ['carol', 'bob', 'alice']) await signIn(login);
    await signIn('alice'); // a second sign-in of hers, on another client
    page = await browser.newPage({ viewport: { width: 1360, height: 900 } });
  });

  afterAll(async () => {
    await app?.close();
    await Promise.all([idp?.stop(), browser?.close()]);
  });

  const row = (login: string) => `#grant-rows tr[data-subject="${login}"]`;

  it('lists the sign-ins per person and client to an administrator signed in with their own token', async () => {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${issuer}/admin`);
    await page.waitForSelector('html[data-state="unauthorized"]');
    await page.fill('#key', (people.get('carol')!.tokens() as { access_token: string }).access_token);
    await page.click('#key-form button[type="submit"]');
    await page.waitForSelector('html[data-mode="admin"][data-state="ok"]');
    await page.waitForSelector('#oauth-panel:not([hidden]) #grant-rows tr[data-grant]');
    expect(await page.textContent('#principal')).toBe('signed in as carol');
    expect(await page.textContent('#grant-count')).toBe('4');
    const shown = await page.$$eval('#grant-rows tr[data-grant]', (rows) =>
      rows.map((tr) => ({ subject: tr.getAttribute('data-subject'), client: tr.getAttribute('data-client') })),
    );
    expect(shown.map((grant) => grant.subject).sort()).toEqual(['alice', 'alice', 'bob', 'carol']);
    for (const [login, provider] of people)
      expect(shown).toContainEqual({
        subject: login,
        client: (provider.clientInformation() as { client_id: string }).client_id,
      });
    expect(await page.textContent(`${row('bob')} td:nth-child(4)`)).toBe('agent');
    expect(await page.textContent(`${row('bob')} td:nth-child(3)`)).toBe('tickets:read');
    expect(errors).toEqual([]);
    await mkdir(OUTPUT, { recursive: true });
    const file = join(OUTPUT, 'admin-oauth.png');
    await (await page.$('#oauth-panel'))!.screenshot({ path: file });
    if (process.env.UPDATE_DOCS_SCREENSHOT === '1') await copyFile(file, DOCS_SCREENSHOT);
  });

  it("revokes one sign-in from the page: that person's refresh token then fails", async () => {
    const bob = people.get('bob')!;
    await page.click(`${row('bob')} button[data-revoke="grantId"]`);
    await page.waitForFunction(() => document.querySelector('#notice').textContent === 'Revoked: 1 sign-in ended.');
    expect(await page.$$(row('bob'))).toHaveLength(0);
    expect(await page.textContent('#grant-count')).toBe('3');
    const answer = await refresh(bob);
    expect(answer.status).toBe(400);
    expect(await answer.json()).toEqual({
      error: 'invalid_grant',
      error_description: 'the refresh token is unknown, expired or revoked',
    });
    // The others' still work.
    const carol = people.get('carol')!;
    const refreshed = await refresh(carol);
    expect(refreshed.status).toBe(200);
    carol.saveTokens((await refreshed.json()) as Record<string, unknown>);
  });

  it('revokes every sign-in of a person at once', async () => {
    const alice = people.get('alice')!;
    expect(await page.$$(row('alice'))).toHaveLength(2);
    await page.click(`${row('alice')} button[data-revoke="subject"]`);
    await page.waitForFunction(() => document.querySelector('#notice').textContent === 'Revoked: 2 sign-ins ended.');
    expect(await page.$$(row('alice'))).toHaveLength(0);
    expect((await refresh(alice)).status).toBe(400);
  });

  it('rotates the signing key from the page: the new key is published, the old one still verifies', async () => {
    const before = (await (await fetch(`${issuer}/oauth/jwks`)).json()) as { keys: { kid: string }[] };
    await page.click('#oauth-rotate');
    await page.waitForFunction(() => document.querySelector('#oauth-meta').textContent.startsWith('new signing key'));
    const after = (await (await fetch(`${issuer}/oauth/jwks`)).json()) as { keys: { kid: string }[] };
    expect(after.keys).toHaveLength(before.keys.length + 1);
    const kid = after.keys[0].kid;
    expect(await page.textContent('#oauth-meta')).toContain(`new signing key ${kid} signs from`);
    // The administrator's token, signed by the previous key, still opens the dashboard.
    await page.click('#refresh');
    await page.waitForSelector('html[data-state="ok"]');
    await (await page.$('#oauth-panel'))!.screenshot({ path: join(OUTPUT, 'admin-oauth-rotated.png') });
  });

  it("lists the approvals people gave on the consent page, and revokes one: the person's sign-in through that client ends", async () => {
    const carol = people.get('carol')!;
    const client = (carol.clientInformation() as { client_id: string }).client_id;
    const approval = `#consent-rows tr[data-subject="carol"][data-client="${client}"]`;
    await page.waitForSelector(approval);
    expect(await page.textContent('#consent-count')).toBe('4');
    await page.click(`${approval} button`);
    await page.waitForFunction(
      () => document.querySelector('#notice').textContent === 'Revoked: 1 approval(s) forgotten, 1 sign-in(s) ended.',
    );
    expect(await page.$$(approval)).toHaveLength(0);
    expect(await (await refresh(carol)).json()).toEqual({
      error: 'invalid_grant',
      error_description: 'the refresh token is unknown, expired or revoked',
    });
  });
});
