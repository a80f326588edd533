import { hash, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Injectable, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { decodeJwt } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { hashApiKey, McpContext, McpModule, McpTool, type McpCallContext } from 'nest-mcp-host';
import { AuditTrail, type AuditRecord } from '#libs/security';
import { McpAuthorizationServer } from '#libs/authorization-server';
import { launchChromium, startCompanyIdp, type CompanyIdp } from '../support/company-idp';
import { freePort } from '../support/free-port';
import { waitFor } from '../support/wait-for';
import { TrustedIdp } from '../matrix/trusted-idp';

jest.setTimeout(60_000);

const HOST_SECRET = 'desk-host-secret-0123456789abcdefghijkl';
const AGENT = { id: 'agent-mcp', secret: 'agent-mcp-secret-0123456789abcdefgh' };
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

@Injectable()
class DeskTools {
  @McpTool({ description: 'Says who is calling, with what' })
  whoami(@McpContext() context: McpCallContext) {
    return { caller: context.caller.id, scopes: context.caller.scopes, roles: context.caller.roles };
  }
}

/** A loopback web server that records every request: a client's redirect URI, or an attacker's site. */
class Listener {
  readonly hits: URL[] = [];
  private server: Server | undefined;
  base = '';

  constructor(private readonly pages: Record<string, (url: URL) => string> = {}) {}

  async start(host = '127.0.0.1'): Promise<this> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', this.base);
      this.hits.push(url);
      const page = this.pages[url.pathname];
      res.writeHead(200, { 'content-type': 'text/html' }).end(page ? page(url) : 'signed in');
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.base = `http://${host}:${(this.server.address() as { port: number }).port}`;
    return this;
  }

  /** The same server under another name (`localhost`: another site than `127.0.0.1`). */
  as(host: string): string {
    return this.base.replace('127.0.0.1', host);
  }

  codes(): string[] {
    return this.hits.map((hit) => hit.searchParams.get('code')).filter((code): code is string => code !== null);
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** An OAuth client of the facade, registered by RFC 7591, with its PKCE verifier. */
interface TestClient {
  id: string;
  redirect: string;
  verifier: string;
}

/**
 * The attacks of issue 36 on the authorization server facade, with real parts: the company IdP is
 * oidc-provider (its accounts changed at run time as its administrators would), people act in
 * Debian's chromium, clients register and redeem over HTTP, ID-JAGs are signed by trusted IdPs'
 * keys. One IdP and one facade host for the file (and a second host for `approvedClientsOnly`).
 */
describe('attacks on the authorization server facade', () => {
  let idp: CompanyIdp;
  let browser: Browser;
  let app: INestApplication;
  let strict: INestApplication;
  let issuer: string;
  let strictIssuer: string;
  let trail: AuditTrail;
  const directory = new TrustedIdp();
  const partner = new TrustedIdp();
  const legit = new Listener();
  const attacker = new Listener();
  let attackerSite: Listener;
  /** alice's browser: signed in at the IdP once, then used for everything she does. */
  let alice: BrowserContext;

  const records = (method: string): AuditRecord[] => trail.recent({ method, limit: 500 });

  beforeAll(async () => {
    const [port, strictPort] = [await freePort(), await freePort()];
    issuer = `http://127.0.0.1:${port}`;
    strictIssuer = `http://127.0.0.1:${strictPort}`;
    attackerSite = new Listener({
      // Another site links to an authorization URL (the mix-up / AS-in-the-middle shape).
      '/link': (url) => `<a id="go" href="${url.searchParams.get('to')!.replace(/"/g, '&quot;')}">continue</a>`,
      // Another page posts the consent form itself, with what it stole of it.
      '/post': (url) =>
        `<form id="f" method="post" action="${issuer}/oauth/consent">` +
        ['request', 'csrf'].map((f) => `<input name="${f}" value="${url.searchParams.get(f) ?? ''}">`).join('') +
        `<button name="decision" value="allow" id="go">go</button></form>`,
    });
    [idp, browser] = await Promise.all([
      startCompanyIdp({
        clients: [
          {
            client_id: 'desk-host',
            client_secret: HOST_SECRET,
            redirect_uris: [`${issuer}/oauth/callback`, `${strictIssuer}/oauth/callback`],
            grant_types: ['authorization_code', 'refresh_token'],
          },
        ],
        accounts: {
          alice: { roles: ['Desk.Agent'] },
          dave: { roles: ['Desk.Agent'] },
          carol: { roles: ['Desk.Admin'] },
        },
      }),
      launchChromium(),
      directory.start(),
      partner.start(),
      legit.start(),
      attacker.start(),
      attackerSite.start(),
    ]);
    const host = (at: string, approvedClientsOnly: boolean) =>
      McpModule.forRoot({
        name: 'desk',
        version: '1.0.0',
        audit: { file: join(mkdtempSync(join(tmpdir(), 'facade-attacks-')), 'audit.jsonl'), flushIntervalMs: 10 },
        auth: {
          mode: 'oauth',
          resource: `${at}/mcp`,
          scopesSupported: ['tickets:read', 'tickets:write'],
          claims: {
            roles: { from: ['roles'], map: { 'Desk.Agent': ['agent'], 'Desk.Admin': ['admin'] } },
            scopes: { from: ['roles'], map: { 'Desk.Agent': ['tickets:read', 'tickets:write'] } },
          },
        } as never,
        authorizationServer: {
          idp: { issuer: idp.issuer, clientId: 'desk-host', clientSecret: HOST_SECRET },
          clients: [{ clientId: AGENT.id, secretHash: hashApiKey(AGENT.secret) }],
          trustedIdps: [
            // The company directory's ID-JAGs (its people are the IdP's), and a partner's (its people are its own).
            { issuer: directory.issuer, jwksUri: directory.jwksUri, sameDirectory: true },
            { issuer: partner.issuer, jwksUri: partner.jwksUri },
          ],
          consent: { approvedClientsOnly },
        },
      });
    const start = async (at: string, listen: number, approvedClientsOnly: boolean) => {
      const moduleRef = await Test.createTestingModule({
        imports: [host(at, approvedClientsOnly)],
        providers: [DeskTools],
      }).compile();
      const started = moduleRef.createNestApplication({ logger: false });
      await started.listen(listen, '127.0.0.1');
      return started;
    };
    [app, strict] = await Promise.all([start(issuer, port, false), start(strictIssuer, strictPort, true)]);
    trail = app.get(AuditTrail);
    alice = await browser.newContext();
  });

  afterAll(async () => {
    await Promise.all([app?.close(), strict?.close()]);
    await Promise.all([
      idp?.stop(),
      browser?.close(),
      directory.stop(),
      partner.stop(),
      legit.stop(),
      attacker.stop(),
      attackerSite?.stop(),
    ]);
  });

  const register = async (name: string, redirect: string, at = issuer): Promise<TestClient> => {
    const answer = await fetch(`${at}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: name, redirect_uris: [redirect], token_endpoint_auth_method: 'none' }),
    });
    const { client_id } = (await answer.json()) as { client_id: string };
    return { id: client_id, redirect, verifier: randomBytes(32).toString('base64url') };
  };

  const authorizeUrl = (client: TestClient, at = issuer, scope?: string) =>
    `${at}/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: client.id,
      redirect_uri: client.redirect,
      code_challenge: hash('sha256', client.verifier, 'base64url'),
      code_challenge_method: 'S256',
      state: 'st',
      resource: `${at}/mcp`,
      ...(scope && { scope }),
    })}`;

  const token = async (body: Record<string, string>, at = issuer, basic?: string) =>
    fetch(`${at}/oauth/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(basic && { authorization: `Basic ${Buffer.from(basic).toString('base64')}` }),
      },
      body: new URLSearchParams(body),
    });

  const redeem = async (client: TestClient, code: string, at = issuer) =>
    (await (
      await token(
        {
          grant_type: 'authorization_code',
          code,
          code_verifier: client.verifier,
          client_id: client.id,
          redirect_uri: client.redirect,
        },
        at,
      )
    ).json()) as { access_token: string; refresh_token: string; scope?: string };

  const refresh = (client: TestClient, refreshToken: string) =>
    token({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.id });

  const jag = (idpOf: TrustedIdp, sub: string, extra: { scope?: string; roles?: string[]; issuedAt?: number } = {}) =>
    idpOf.assertion({
      sub,
      audience: issuer,
      resource: `${issuer}/mcp`,
      clientId: AGENT.id,
      scope: extra.scope ?? 'tickets:read',
      roles: extra.roles ?? [],
      issuedAt: extra.issuedAt,
    });

  const jwtBearer = (assertion: string, at = issuer) =>
    token({ grant_type: JWT_BEARER, assertion }, at, `${AGENT.id}:${AGENT.secret}`);

  /** The desk's `whoami` tool, called with an access token of the facade (SDK v1 client). */
  const whoami = async (accessToken: string) => {
    const client = new Client({ name: 'e2e', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${issuer}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
      }),
    );
    try {
      const result = (await client.callTool({ name: 'whoami', arguments: {} })) as { content: { text: string }[] };
      return JSON.parse(result.content[0].text) as { caller: string; scopes: string[]; roles: string[] };
    } finally {
      await client.close();
    }
  };

  /**
   * Opens `url` in a page of `context`; at the IdP's login page, signs in as `login`. Resolves once
   * the page has left the IdP: on the facade's consent page, an error page, or a client's redirect URI.
   */
  async function open(context: BrowserContext, url: string, login = 'alice'): Promise<Page> {
    const page = await context.newPage();
    await page.goto(url);
    await leaveIdp(page, login);
    return page;
  }

  async function leaveIdp(page: Page, login: string): Promise<void> {
    if (!page.url().startsWith(idp.issuer)) return;
    await page.fill('input[name="login"]', login);
    await page.fill('input[name="password"]', 'any password');
    await Promise.all([
      page.waitForURL((target) => !target.href.startsWith(idp.issuer)),
      page.click('button[type="submit"]'),
    ]);
  }

  /** A person approves the client on the consent page; the client's listener gets the code. */
  async function allow(page: Page, client: TestClient): Promise<string> {
    await Promise.all([page.waitForURL((target) => target.href.startsWith(client.redirect)), page.click('#allow')]);
    return new URL(page.url()).searchParams.get('code')!;
  }

  describe('scopes and roles (item 1)', () => {
    it("grants an ID-JAG only what the person's claims map to: its scope and roles claims make no administrator, and the narrowing is audited", async () => {
      const answer = await jwtBearer(
        await jag(directory, 'mallory', { scope: 'mcp:admin tickets:read', roles: ['admin'] }),
      );
      expect(answer.status).toBe(200);
      const { access_token: accessToken, scope } = (await answer.json()) as { access_token: string; scope?: string };
      expect(scope).toBeUndefined();
      expect(decodeJwt(accessToken)).toMatchObject({ sub: 'mallory', scope: '', roles: [] });
      const admin = await fetch(`${issuer}/admin/api/oauth/grants`, {
        headers: { authorization: `Bearer ${accessToken}` },
      });
      expect(admin.status).toBe(403);
      const narrowed = () => records('oauth/token').find((record) => record.principal === 'mallory');
      await waitFor(() => narrowed() !== undefined);
      expect(narrowed()!.arguments).toEqual({
        grant_type: JWT_BEARER,
        resource: [],
        scope: null,
        asked: 'mcp:admin tickets:read',
        granted: '',
        withheld: ['mcp:admin', 'tickets:read'],
      });
    });

    it('narrows an ID-JAG to what it asked for, within what the claims map to', async () => {
      const answer = await jwtBearer(await jag(directory, 'alice', { scope: 'tickets:read', roles: ['Desk.Agent'] }));
      expect(decodeJwt(((await answer.json()) as { access_token: string }).access_token)).toMatchObject({
        sub: 'alice',
        scope: 'tickets:read',
        roles: ['agent'],
      });
    });

    it('refuses an ID-JAG dated in the future (iat), saying why, and audits it (item 10)', async () => {
      const answer = await jwtBearer(await jag(directory, 'alice', { issuedAt: Math.floor(Date.now() / 1000) + 3600 }));
      expect(answer.status).toBe(400);
      expect(await answer.json()).toEqual({
        error: 'invalid_grant',
        error_description: "the assertion's iat is in the future",
      });
      await waitFor(() => records('oauth/token').some((record) => record.error?.includes('iat is in the future')));
    });
  });

  describe('consent (item 2)', () => {
    let helper: TestClient;
    let helperTokens: { refresh_token: string };

    it("asks the person on the facade's own page before a new client gets a code: its name, where its metadata came from, where the code goes, the scopes; the page cannot be framed", async () => {
      helper = await register('Desk Helper', `${legit.base}/callback`);
      const page = await alice.newPage();
      const consentPage = page.waitForResponse((response) => response.url().startsWith(`${issuer}/oauth/callback`));
      await page.goto(authorizeUrl(helper));
      await leaveIdp(page, 'alice');
      const headers = (await consentPage).headers();
      expect(headers['x-frame-options']).toBe('DENY');
      expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(legit.codes()).toEqual([]);
      expect(await page.textContent('#client-name')).toBe('Desk Helper');
      expect(await page.textContent('#client-source')).toContain('registered itself at this server');
      expect(await page.textContent('#redirect-host')).toContain(`http://127.0.0.1 ${helper.redirect}`);
      expect(await page.textContent('#scopes')).toBe('tickets:read tickets:write');
      // A loopback redirect URI proves no one: the page says so.
      expect(await page.textContent('#loopback')).toContain(
        'any program listening there could claim to be this client',
      );
      const code = await allow(page, helper);
      expect(legit.codes()).toEqual([code]);
      helperTokens = await redeem(helper, code);
      expect(await whoami((helperTokens as unknown as { access_token: string }).access_token)).toEqual({
        caller: 'alice',
        scopes: ['tickets:read', 'tickets:write'],
        roles: ['agent'],
      });
      await waitFor(() =>
        records('oauth/consent').some(
          (record) => record.principal === 'alice' && record.target === helper.id && record.outcome === 'ok',
        ),
      );
      await page.close();
    });

    it('redeems a code once, for its client, with its PKCE verifier; a code presented wrongly is spent', async () => {
      // Approved before and opened by her own client: the code comes at once.
      const codeOf = async () => {
        const page = await open(alice, authorizeUrl(helper));
        await page.close();
        return new URL(page.url()).searchParams.get('code')!;
      };
      const other = await register('Other', `${legit.base}/callback`);
      const redeemAs = (code: string, client: TestClient, verifier: string) =>
        token({ grant_type: 'authorization_code', code, client_id: client.id, code_verifier: verifier });
      const refused = async (answer: Response) =>
        ((await answer.json()) as { error_description: string }).error_description;
      const first = await codeOf();
      expect(await refused(await redeemAs(first, other, helper.verifier))).toBe(
        'the code was issued to another client',
      );
      expect(await refused(await redeemAs(first, helper, helper.verifier))).toBe(
        'the authorization code is unknown, expired or already used',
      );
      const second = await codeOf();
      expect(await refused(await redeemAs(second, helper, other.verifier))).toBe(
        'code_verifier does not match the code_challenge (PKCE)',
      );
    });

    it("gives an attacker's client no code when a signed-in person opens its link (confused deputy)", async () => {
      const lure = await register('Desk Helper', `${attacker.base}/callback`);
      const page = await open(alice, authorizeUrl(lure));
      expect(new URL(page.url()).pathname).toBe('/oauth/callback');
      expect(await page.textContent('#redirect-host')).toContain(lure.redirect);
      expect(attacker.codes()).toEqual([]);
      await Promise.all([page.waitForURL((target) => target.href.startsWith(lure.redirect)), page.click('#deny')]);
      expect(attacker.codes()).toEqual([]);
      expect(new URL(page.url()).searchParams.get('error')).toBe('access_denied');
      await page.close();
    });

    it('asks again when another site opened the link, even for a client the person approved (mix-up); her own client needs no second approval', async () => {
      const before = legit.codes().length;
      const page = await alice.newPage();
      await page.goto(`${attackerSite.as('localhost')}/link?to=${encodeURIComponent(authorizeUrl(helper))}`);
      await Promise.all([page.waitForURL((target) => target.href.startsWith(issuer)), page.click('#go')]);
      await page.waitForURL((target) => target.pathname === '/oauth/callback');
      expect(await page.locator('#allow').count()).toBe(1);
      expect(legit.codes()).toHaveLength(before);
      await page.goto(authorizeUrl(helper));
      await page.waitForURL((target) => target.href.startsWith(helper.redirect));
      expect(legit.codes()).toHaveLength(before + 1);
      await page.close();
    });

    it('takes the answer only from the browser that signed in, from its own page, with its CSRF token', async () => {
      const client = await register('Ticket Bot', `${legit.base}/callback`);
      const page = await open(alice, authorizeUrl(client));
      const request = await page.getAttribute('input[name="request"]', 'value');
      const csrf = await page.getAttribute('input[name="csrf"]', 'value');
      // Another page of the same site, in her browser (her cookie goes with it), posts the form it stole.
      for (const stolen of [{ request }, { request, csrf }]) {
        const forged = await alice.newPage();
        await forged.goto(`${attackerSite.base}/post?${new URLSearchParams(stolen as Record<string, string>)}`);
        await Promise.all([forged.waitForURL((target) => target.href.startsWith(issuer)), forged.click('#go')]);
        expect(await forged.textContent('p')).toContain(`access_denied: the form was not sent from ${issuer}`);
        await forged.close();
      }
      // Her own browser without the form's token, and the attacker's browser with it.
      const noToken = await alice.request.post(`${issuer}/oauth/consent`, {
        form: { request: request!, decision: 'allow' },
      });
      expect(await noToken.text()).toContain('the form is not the one this server showed (CSRF)');
      const elsewhere = await browser.newContext();
      const other = await elsewhere.request.post(`${issuer}/oauth/consent`, {
        form: { request: request!, csrf: csrf!, decision: 'allow' },
      });
      expect(await other.text()).toContain('this is not the browser that signed in');
      await elsewhere.close();
      const before = legit.codes().length;
      await allow(page, client);
      expect(legit.codes()).toHaveLength(before + 1);
      await waitFor(() =>
        records('oauth/consent').some(
          (record) => record.principal === 'alice' && record.error?.includes('was not sent from'),
        ),
      );
      await page.close();
    });

    it("refuses the IdP's answer in another browser than the one that started the sign-in", async () => {
      const lure = await register('Desk Helper', `${attacker.base}/callback`);
      const theirs = await browser.newContext();
      // The attacker starts the sign-in in their own browser and takes the IdP's authorization URL.
      const started = await theirs.request.get(authorizeUrl(lure), { maxRedirects: 0 });
      const atIdp = started.headers()['location'];
      expect(atIdp.startsWith(`${idp.issuer}/auth?`)).toBe(true);
      // They send it to alice: she signs in at the IdP, which sends her to the facade's callback.
      const sent = await open(alice, atIdp);
      expect(await sent.textContent('p')).toContain('this sign-in did not start in this browser');
      expect(attacker.codes()).toEqual([]);
      await Promise.all([sent.close(), theirs.close()]);
    });

    it('lets the person see and revoke what she approved on her own page: the client asks again, its sign-ins end', async () => {
      const page = await open(alice, `${issuer}/oauth/consents`);
      expect(await page.locator(`tr[data-client="${helper.id}"]`).count()).toBe(1);
      await Promise.all([
        page.waitForURL(`${issuer}/oauth/consents`),
        page.click(`tr[data-client="${helper.id}"] button`),
      ]);
      expect(await page.locator(`tr[data-client="${helper.id}"]`).count()).toBe(0);
      expect(await (await refresh(helper, helperTokens.refresh_token)).json()).toMatchObject({
        error: 'invalid_grant',
      });
      const again = await open(alice, authorizeUrl(helper));
      expect(await again.locator('#allow').count()).toBe(1);
      await waitFor(() =>
        records('oauth/consents').some(
          (record) => record.principal === 'alice' && record.target === helper.id && record.outcome === 'ok',
        ),
      );
      await Promise.all([page.close(), again.close()]);
    });

    it('lets an administrator list and revoke approvals (admin API): the sign-ins they let in end', async () => {
      const client = await register('Report Runner', `${legit.base}/callback`);
      const page = await open(alice, authorizeUrl(client));
      const tokens = await redeem(client, await allow(page, client));
      await page.close();
      const admin = {
        authorization: `Bearer ${((await (await jwtBearer(await jag(directory, 'carol', { roles: ['Desk.Admin'] }))).json()) as { access_token: string }).access_token}`,
        'content-type': 'application/json',
      };
      const listed = (await (await fetch(`${issuer}/admin/api/oauth/consents`, { headers: admin })).json()) as {
        consents: { subject: string; clientId: string; scopes: string[] }[];
      };
      expect(listed.consents).toContainEqual(
        expect.objectContaining({ subject: 'alice', clientId: client.id, scopes: ['tickets:read', 'tickets:write'] }),
      );
      const revoked = await fetch(`${issuer}/admin/api/oauth/consents/revoke`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ subject: 'alice', clientId: client.id }),
      });
      expect(await revoked.json()).toEqual({ consents: 1, signIns: 1 });
      expect(await (await refresh(client, tokens.refresh_token)).json()).toMatchObject({ error: 'invalid_grant' });
    });

    it('offers only clients an administrator approved, with approvedClientsOnly: the others wait on their list', async () => {
      const client = await register('Unvetted', `${legit.base}/callback`, strictIssuer);
      const page = await open(alice, authorizeUrl(client, strictIssuer));
      expect(await page.textContent('p')).toContain('no administrator has approved the client "Unvetted" yet');
      const admin = {
        authorization: `Bearer ${((await (await jwtBearer(await strictJag('carol'), strictIssuer)).json()) as { access_token: string }).access_token}`,
        'content-type': 'application/json',
      };
      const waiting = (await (await fetch(`${strictIssuer}/admin/api/oauth/clients`, { headers: admin })).json()) as {
        approvedClientsOnly: boolean;
        requested: { clientId: string; name: string }[];
      };
      expect(waiting).toMatchObject({
        approvedClientsOnly: true,
        requested: [{ clientId: client.id, name: 'Unvetted' }],
      });
      const approved = await fetch(`${strictIssuer}/admin/api/oauth/clients/approve`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ clientId: client.id }),
      });
      expect(await approved.json()).toEqual({ clientId: client.id, approved: true, signInsEnded: 0 });
      await page.goto(authorizeUrl(client, strictIssuer));
      await leaveIdp(page, 'alice');
      expect(new URL(page.url()).pathname).toBe('/oauth/callback');
      const code = await allow(page, client);
      expect((await redeem(client, code, strictIssuer)).access_token).toBeDefined();
      await page.close();
    });

    /** An ID-JAG of the company directory for the strict host. */
    const strictJag = (sub: string) =>
      directory.assertion({
        sub,
        audience: strictIssuer,
        resource: `${strictIssuer}/mcp`,
        clientId: AGENT.id,
        scope: 'tickets:read',
        roles: ['Desk.Admin'],
      });
  });

  describe('offboarding and identity (item 15)', () => {
    it('narrows a sign-in at its next refresh when the person leaves a group at the IdP, and ends it when the IdP disables them', async () => {
      const client = await register('Desk Helper', `${legit.base}/callback`);
      const dave = await browser.newContext();
      const page = await open(dave, authorizeUrl(client), 'dave');
      const first = await redeem(client, await allow(page, client));
      await dave.close();
      expect(decodeJwt(first.access_token)).toMatchObject({
        sub: 'dave',
        scope: 'tickets:read tickets:write',
        roles: ['agent'],
      });
      await idp.setAccount('dave', { roles: [] });
      const narrowed = await refresh(client, first.refresh_token);
      expect(narrowed.status).toBe(200);
      const second = (await narrowed.json()) as { access_token: string; refresh_token: string };
      expect(decodeJwt(second.access_token)).toMatchObject({ sub: 'dave', scope: '', roles: [] });
      await idp.setAccount('dave', { disabled: true });
      const ended = await refresh(client, second.refresh_token);
      expect(ended.status).toBe(400);
      expect(((await ended.json()) as { error_description: string }).error_description).toMatch(
        /^the identity provider no longer accepts this sign-in \(invalid_grant.*\): it is ended; sign in again$/,
      );
      expect((await app.get(McpAuthorizationServer).grants()).some((grant) => grant.subject === 'dave')).toBe(false);
      await waitFor(() =>
        records('oauth/token').some(
          (record) => record.principal === 'dave' && record.error?.startsWith('invalid_grant: the identity provider'),
        ),
      );
    });

    it("keeps a partner IdP's people apart from the company's: its alice is not the company's alice", async () => {
      const answer = await jwtBearer(await jag(partner, 'alice', { roles: ['Desk.Agent'] }));
      const { access_token: accessToken } = (await answer.json()) as { access_token: string };
      expect(await whoami(accessToken)).toEqual({
        caller: `${partner.issuer}#alice`,
        scopes: ['tickets:read'],
        roles: ['agent'],
      });
    });
  });

  describe('the audit trail (item 14)', () => {
    it('records a successful authorization request, and names the person behind a refusal when the facade knows them', async () => {
      const client = await register('Desk Helper', `${legit.base}/callback`);
      const page = await open(alice, authorizeUrl(client));
      const tokens = await redeem(client, await allow(page, client));
      await page.close();
      await waitFor(() =>
        records('oauth/authorize').some((record) => record.target === client.id && record.outcome === 'ok'),
      );
      expect((await refresh(client, tokens.refresh_token)).status).toBe(200);
      const replay = await refresh(client, tokens.refresh_token);
      expect(await replay.json()).toEqual({
        error: 'invalid_grant',
        error_description: 'the refresh token was already used: the sign-in is revoked',
      });
      await waitFor(() =>
        records('oauth/token').some(
          (record) =>
            record.principal === 'alice' && record.error?.includes('already used') && record.target === client.id,
        ),
      );
    });
  });
});
