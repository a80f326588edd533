import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { freePort } from './free-port';

export interface IdpClient {
  client_id: string;
  client_secret?: string;
  redirect_uris?: string[];
  grant_types?: string[];
  response_types?: string[];
  token_endpoint_auth_method?: string;
}

/** A person at the IdP: their app roles and groups; a disabled one can no longer sign in or refresh. */
export interface IdpAccount {
  roles?: string[];
  groups?: string[];
  disabled?: boolean;
}

export interface CompanyIdpSettings {
  clients: IdpClient[];
  /** Users by login, with the app roles and groups the IdP gives them. */
  accounts: Record<string, IdpAccount>;
  /** Which IdP clients may exchange an ID token for an ID-JAG, and the client id they have at the MCP authorization server. */
  idJag?: Record<string, { mcpClientId: string; allowed?: string[] }>;
  /** Lifetime of the access tokens it issues. @default 600 */
  accessTokenTtlSec?: number;
  /** The scopes a resource server's JWT access tokens may carry. @default 'tickets:read tickets:write' */
  resourceScope?: string;
}

export interface CompanyIdp {
  issuer: string;
  /** How many token requests succeeded, per grant type. */
  counts(): Promise<Record<string, number>>;
  /** Changes a person, as the IdP's administrators do (a group removed, the account disabled). */
  setAccount(login: string, account: IdpAccount): Promise<void>;
  stop(): Promise<void>;
}

/** The company IdP (test/support/company-idp.mjs, a real oidc-provider) in a child process. */
export async function startCompanyIdp(settings: CompanyIdpSettings): Promise<CompanyIdp> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    process.execPath,
    [join(__dirname, 'company-idp.mjs'), JSON.stringify({ ...settings, port })],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const issuer = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /READY (\S+)/.exec(out);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`the company IdP exited (${code}) before it listened`)));
  });
  return {
    issuer,
    counts: async () => (await fetch(`${issuer}/test/counts`)).json() as Promise<Record<string, number>>,
    setAccount: async (login, account) => {
      await fetch(`${issuer}/test/accounts/${login}`, { method: 'PUT', body: JSON.stringify(account) });
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Debian's chromium through playwright-core (the specs that use the IdP import it from here). */
export { launchChromium } from './chromium';

/**
 * A person signing in: opens `url` (an authorization request), signs in at the company IdP's
 * login page as `login`, approves the client on the authorization server facade's consent page
 * when it asks (`consent: 'deny'` declines), and follows the redirects until one reaches
 * `redirectPrefix`, whose URL it returns (the client's redirect URI with the code, or an error).
 * `listen: false` when the client serves its redirect URI itself.
 */
export async function signInInBrowser(
  browser: Browser,
  url: string,
  login: string,
  redirectPrefix: string,
  { listen = true, consent = 'allow' }: { listen?: boolean; consent?: 'allow' | 'deny' } = {},
): Promise<URL> {
  // The client's redirect URI, listening as a native client's loopback listener does (unless the
  // client listens itself, as mcp-remote does).
  const listener = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('signed in'));
  if (listen)
    await new Promise<void>((resolve) => listener.listen(Number(new URL(redirectPrefix).port), '127.0.0.1', resolve));
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.route('**/*', (route) => {
      const host = new URL(route.request().url()).hostname;
      return host === '127.0.0.1' || host === 'localhost' ? route.continue() : route.abort();
    });
    const arrived = (target: URL) => target.href.startsWith(redirectPrefix);
    // The facade shows its consent page where the IdP sends the person back.
    const asked = (target: URL) => target.pathname.endsWith('/oauth/callback');
    await page.goto(url);
    if (!arrived(new URL(page.url()))) {
      await page.fill('input[name="login"]', login);
      await page.fill('input[name="password"]', 'any password');
      await Promise.all([
        page.waitForURL((target) => arrived(target) || asked(target)),
        page.click('button[type="submit"]'),
      ]);
    }
    if (!arrived(new URL(page.url())) && (await page.locator(`#${consent}`).count()) > 0)
      await Promise.all([page.waitForURL(arrived), page.click(`#${consent}`)]);
    return new URL(page.url());
  } finally {
    await context.close();
    if (listen) await new Promise((resolve) => listener.close(resolve));
  }
}

/**
 * A person opening a host's connect link (the `'user'` credential's URL elicitation) in a
 * browser: signs in at each login page on the way, in order (the company IdP, then the API's own
 * authorization server), until a page of the host (`hostBase`) shows, whose heading and text it
 * returns ("Connected", "Not your link", …).
 */
export async function openConnectLink(
  browser: Browser,
  url: string,
  logins: string[],
  hostBase: string,
): Promise<{ status: string; text: string }> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(url);
    const host = new URL(hostBase).origin;
    for (const login of logins) {
      const here = page.url();
      if (new URL(here).origin === host) break;
      await page.fill('input[name="login"]', login);
      await page.fill('input[name="password"]', 'any password');
      await Promise.all([page.waitForURL((target) => target.href !== here), page.click('button[type="submit"]')]);
    }
    if (new URL(page.url()).origin !== host)
      throw new Error(`the connect flow ended at ${page.url()}, not at the host ${host}`);
    return { status: await page.locator('h1').innerText(), text: await page.locator('p').innerText() };
  } finally {
    await context.close();
  }
}
