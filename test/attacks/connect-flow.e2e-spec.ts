import type { BrowserContext, Page } from 'playwright-core';
import { startConnectDesk, type ConnectDesk } from '../support/connect-desk';
import { waitFor } from '../support/wait-for';

jest.setTimeout(60_000);

/** A page of the host's connect flow: its heading and its sentence. */
const shown = async (page: Page) => ({
  status: await page.locator('h1').innerText(),
  text: await page.locator('p').innerText(),
});

/** Signs in as `login` on the login page shown (the company IdP's or the CRM's); resolves once `next` is reached. */
async function signIn(page: Page, login: string, next: (url: URL) => boolean): Promise<void> {
  await page.fill('input[name="login"]', login);
  await page.fill('input[name="password"]', 'any password');
  await Promise.all([page.waitForURL(next), page.click('button[type="submit"]')]);
}

/**
 * The connect flow of a `'user'` credential, attacked in chromium: the second leg (the CRM's
 * authorization server redirecting to `/connect/callback` with a code) must be finished by the
 * browser that passed the company-IdP check on the link, for the person the link was made for
 * (RFC 6749 §10.12). The attacker is bob, the victim alice, each in a browser of their own.
 */
describe('attack: the connect flow finished by another person', () => {
  let desk: ConnectDesk;
  const contexts: BrowserContext[] = [];

  /** A browser of its own (its own cookies: a person's), kept on the host's and the IdPs' loopback. */
  async function browserOfOwn(): Promise<Page> {
    const context = await desk.browser.newContext();
    contexts.push(context);
    return context.newPage();
  }

  const atCrmLogin = (url: URL) =>
    url.origin === new URL(desk.crmIdp.issuer).origin && url.pathname.startsWith('/interaction');
  const atHost = (url: URL) => url.origin === desk.base;
  const isCallback = (url: URL) => atHost(url) && url.pathname === '/connect/callback';
  /** The connect flow's cookies of a browser (they are scoped to the connect pages). */
  const connectCookies = async (page: Page) =>
    (await page.context().cookies(`${desk.base}/connect/callback`)).filter((cookie) =>
      cookie.name.startsWith('mcp-connect-'),
    );

  /**
   * `login`'s connect link (their call of the CRM API asks for it), handed to `use`; the call is
   * then declined, so that nothing waits for it.
   */
  async function withLinkOf(login: string, use: (link: string) => Promise<void>): Promise<void> {
    await callWithLink(login, async (link) => {
      await use(link);
      return 'decline';
    });
  }

  /**
   * `login`'s call of the CRM API, its connect link answered by `answer`; what `answer` threw
   * (the client would only tell the host) is thrown here. Resolves with the call's text.
   */
  async function callWithLink(login: string, answer: (link: string) => Promise<'accept' | 'decline'>) {
    let failure: unknown;
    const client = await desk.client(login, (link) =>
      answer(link).catch((error: unknown) => {
        failure ??= error;
        return 'decline' as const;
      }),
    );
    try {
      const result = await client.callTool({ name: 'crm_me', arguments: {} });
      if (failure) throw failure;
      return { isError: result.isError === true, text: (result.content as { text: string }[])[0].text };
    } finally {
      await client.close();
    }
  }

  /** Opens `link` in `page` and signs in at the company IdP as `login`, up to the CRM's login page. */
  async function passIdpCheck(page: Page, link: string, login: string): Promise<void> {
    await page.goto(link);
    await signIn(page, login, atCrmLogin);
  }

  const redeemedCodes = async () => (await desk.crmIdp.counts()).authorization_code ?? 0;

  beforeAll(async () => {
    desk = await startConnectDesk();
  }, 60_000);

  afterAll(async () => {
    await Promise.all(contexts.map((context) => context.close()));
    await desk?.stop();
  });

  it("refuses bob's authorization at the CRM finished in alice's browser: bob's connection never holds alice's account", async () => {
    const codes = await redeemedCodes();
    let landed: { status: string; text: string } | undefined;
    await withLinkOf('bob', async (link) => {
      // Bob passes the company-IdP check on his own link, and takes the CRM authorization request his browser is sent on.
      const bobs = await browserOfOwn();
      let authorization: string | undefined;
      bobs.on('request', (request) => {
        if (request.url().startsWith(`${desk.crmIdp.issuer}/auth?`)) authorization = request.url();
      });
      await passIdpCheck(bobs, link, 'bob');
      expect(authorization).toContain('state=');
      // He gets alice to open it: she signs in at the CRM as herself, and the CRM sends her browser back with her code.
      const alices = await browserOfOwn();
      await alices.goto(authorization!);
      await signIn(alices, 'alice.crm', atHost);
      landed = await shown(alices);
    });
    expect(landed).toEqual({
      status: 'Not your sign-in',
      text: 'This page must open in the browser that signed in for the link. Start again from your client.',
    });
    // Her code was never redeemed, and bob holds no account.
    expect(await redeemedCodes()).toBe(codes);
    expect(await desk.connections('bob')).toEqual([]);
    await waitFor(() => desk.records('connect/callback').length > 0);
    expect(desk.records('connect/callback')[0]).toMatchObject({
      principal: null,
      target: 'api crm',
      arguments: { for: 'bob' },
      outcome: 'denied',
      error:
        "the API's answer for bob's link came to a browser that did not sign in for it: refused before the code was redeemed",
    });
  });

  it("refuses alice's callback URL (her state and code) opened in bob's browser, naming bob", async () => {
    const codes = await redeemedCodes();
    let callback: string | undefined;
    await withLinkOf('alice', async (link) => {
      // Alice connects in her browser; her callback URL is carried off before her browser opens it.
      const alices = await browserOfOwn();
      // Playwright's routes do not see a redirect's next request: chromium's own interception (CDP) does.
      const cdp = await alices.context().newCDPSession(alices);
      cdp.on('Fetch.requestPaused', ({ requestId, request }: { requestId: string; request: { url: string } }) => {
        callback = request.url;
        void cdp.send('Fetch.failRequest', { requestId, errorReason: 'Aborted' });
      });
      await cdp.send('Fetch.enable', { patterns: [{ urlPattern: `${desk.base}/connect/callback?*` }] });
      await passIdpCheck(alices, link, 'alice');
      await alices.fill('input[name="login"]', 'alice.crm');
      await alices.fill('input[name="password"]', 'any password');
      await alices.click('button[type="submit"]');
      await waitFor(() => callback !== undefined);
    });
    let landed: { status: string; text: string } | undefined;
    await withLinkOf('bob', async (link) => {
      // Bob's browser signed in for a link of his own (it holds a connect cookie): not for hers.
      const bobs = await browserOfOwn();
      await passIdpCheck(bobs, link, 'bob');
      await bobs.goto(callback!);
      landed = await shown(bobs);
    });
    expect(landed).toMatchObject({ status: 'Not your sign-in' });
    expect(await redeemedCodes()).toBe(codes);
    expect(await desk.connections('alice')).toEqual([]);
    expect(await desk.connections('bob')).toEqual([]);
    await waitFor(() => desk.records('connect/callback').some((record) => record.principal === 'bob'));
    expect(desk.records('connect/callback').find((record) => record.principal === 'bob')).toMatchObject({
      target: 'api crm',
      arguments: { for: 'alice' },
      outcome: 'denied',
      error:
        "the API's answer for alice's link came to a browser that did not sign in for it (it signed in as bob): refused before the code was redeemed",
    });
  });

  it("refuses bob's link opened where alice is signed in at the company IdP", async () => {
    let landed: { status: string; text: string } | undefined;
    await withLinkOf('bob', async (link) => {
      const alices = await browserOfOwn();
      await alices.goto(link);
      await signIn(alices, 'alice', atHost);
      landed = await shown(alices);
    });
    expect(landed).toEqual({
      status: 'Not your link',
      text: 'This link was made for another person. Ask your own client for one.',
    });
    expect(await desk.connections('bob')).toEqual([]);
    await waitFor(() => desk.records('connect/verify').length > 0);
    expect(desk.records('connect/verify')[0]).toMatchObject({
      principal: 'alice',
      arguments: { for: 'bob' },
      outcome: 'denied',
    });
  });

  it('answers its pages so that nothing runs on them and no other site frames them', async () => {
    const page = await fetch(`${desk.base}/connect/no-such-link`);
    expect(page.status).toBe(404);
    expect(Object.fromEntries(page.headers)).toMatchObject({
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      'x-frame-options': 'DENY',
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
    });
  });

  it('connects the person in the browser that signed in, once: the cookie is HttpOnly, SameSite=Lax, and spent; the callback replayed is refused', async () => {
    let callback: string | undefined;
    let landed: { status: string; text: string } | undefined;
    let replayed: { status: string; text: string } | undefined;
    const result = await callWithLink('bob', async (link) => {
      const bobs = await browserOfOwn();
      bobs.on('request', (request) => {
        if (isCallback(new URL(request.url()))) callback = request.url();
      });
      await passIdpCheck(bobs, link, 'bob');
      expect(await connectCookies(bobs)).toEqual([
        expect.objectContaining({ path: '/connect', httpOnly: true, sameSite: 'Lax', secure: false }),
      ]);
      await signIn(bobs, 'bob.crm', atHost);
      landed = await shown(bobs);
      expect(await connectCookies(bobs)).toEqual([]);
      await bobs.goto(callback!);
      replayed = await shown(bobs);
      return 'accept';
    });
    expect(landed).toMatchObject({ status: 'Connected' });
    expect(replayed).toEqual({ status: 'Link expired', text: 'Start again from your client.' });
    expect(result).toEqual({ isError: false, text: '{"account":"bob.crm"}' });
    expect(await desk.connections('bob')).toEqual([expect.objectContaining({ target: 'api crm', account: 'bob.crm' })]);
  });
});
