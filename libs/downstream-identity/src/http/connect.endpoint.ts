import type { ServerResponse } from 'node:http';
import { Inject, Injectable, Logger, Optional, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { httpPlatformOf, type NodeRequest } from '#libs/core';
import { CompanyIdpLogin } from '#libs/authorization-server';
import { Authenticator, ClientAddresses } from '#libs/security';
import { DownstreamIdentity } from '../downstream-identity';
import { InjectDownstreamOptions, type DownstreamOptions } from '../options/downstream.options';
import { DownstreamAudit } from '../audit/downstream-audit';
import type { PendingConnection, UserConnections } from '../connections/user-connections';
import { BrowserBinding, type BoundBrowser } from './browser-binding';
import { sendJson, sendPage } from './connect-pages';

interface Verifying {
  id: string;
  nonce: string;
  codeVerifier: string;
  state: string;
}

/** A person the company IdP signed in: `sub`, and Entra's `oid` (stable across apps) when it gave one. */
interface SignedIn {
  sub: string;
  oid: string | null;
}

interface Authorizing {
  id: string;
  state: string;
  codeVerifier: string;
  /** The person who passed the company-IdP check: the link's own. */
  person: SignedIn;
  /** The browser they passed it in: the callback is taken from it alone. */
  browser: BoundBrowser;
}

/** Which person signed in with a browser's connect cookie (to name them when that browser is refused). */
interface BrowserSignIn extends BoundBrowser {
  person: string;
}

/**
 * The connect pages of `'user'` credentials, on the application's HTTP server:
 * - `<path>/<id>`: the link a URL-mode elicitation gave the person; they sign in at the company
 *   IdP first, so that only the person the link was made for can finish it;
 * - `<path>/verified`: back from the IdP; another person is refused (audited); the right one's
 *   browser gets a cookie of this flow (`BrowserBinding`) and goes on to the API's authorization server;
 * - `<path>/callback`: back from the API's server with a code: taken only from that browser, for
 *   the person the link was made for (anything else refused before the code is redeemed, audited);
 *   the tokens are redeemed and sealed;
 * - `<path>/accounts` (`GET`, `DELETE ?target=`): the caller's own connections, with the host's
 *   authentication (`Authorization: Bearer …`), to see and revoke them.
 */
@Injectable()
export class ConnectEndpoint implements OnModuleInit {
  private readonly logger = new Logger('McpConnect');
  private readonly audit: DownstreamAudit;

  constructor(
    @Inject(DownstreamIdentity) @Optional() private readonly downstream: DownstreamIdentity | undefined,
    @InjectDownstreamOptions() private readonly options: DownstreamOptions,
    private readonly adapterHost: HttpAdapterHost,
    private readonly addresses: ClientAddresses,
    private readonly authenticator: Authenticator,
    @Inject(DownstreamAudit) audit: DownstreamAudit,
  ) {
    this.audit = audit;
  }

  onModuleInit(): void {
    const connections = this.downstream?.connections;
    const adapter = this.adapterHost?.httpAdapter;
    const { idp } = this.options;
    if (!connections || !idp || !adapter?.getHttpServer()) return;
    const { path, publicUrl, pendingTtlMs } = this.options.connections!;
    const binding = new BrowserBinding(publicUrl, path, pendingTtlMs);
    const login = new CompanyIdpLogin({ ...idp, scopes: ['openid'] }, `${connections.base}/verified`);
    const platform = httpPlatformOf(adapter);
    const run =
      (work: (req: NodeRequest, res: ServerResponse) => Promise<void>) => (req: NodeRequest, res: ServerResponse) =>
        void work(req, res).catch((error: unknown) => {
          this.logger.error(`${req.url?.split('?')[0]} failed: ${(error as Error)?.stack ?? String(error)}`);
          if (!res.headersSent)
            sendPage(
              res,
              500,
              'Something went wrong',
              'The account could not be connected; try again from your client.',
            );
        });
    platform.route(
      'GET',
      `${path}/verified`,
      run((req, res) => this.verified(req, res, connections, login, binding)),
    );
    platform.route(
      'GET',
      `${path}/callback`,
      run((req, res) => this.callback(req, res, connections, binding)),
    );
    platform.route(
      'GET',
      `${path}/accounts`,
      run((req, res) => this.accounts(req, res, connections)),
    );
    platform.route(
      'DELETE',
      `${path}/accounts`,
      run((req, res) => this.accounts(req, res, connections)),
    );
    platform.route(
      'GET',
      `${path}/:id`,
      run((req, res) => this.start(req, res, connections, login)),
    );
    this.logger.log(`Connect pages at ${connections.base}`);
  }

  /** The link of an elicitation: the person signs in at the company IdP first. */
  private async start(req: NodeRequest, res: ServerResponse, connections: UserConnections, login: CompanyIdpLogin) {
    const id = decodeURIComponent(new URL(req.url ?? '/', 'http://connect.invalid').pathname.split('/').pop() ?? '');
    const pending = await connections.pending(id);
    if (!pending)
      return sendPage(res, 404, 'Link expired', 'This link is unknown or expired: call the tool again for a new one.');
    const signIn = await login.start();
    await connections.putState(`verify|${signIn.state}`, {
      id,
      nonce: signIn.nonce,
      codeVerifier: signIn.codeVerifier,
      state: signIn.state,
    } satisfies Verifying);
    res.writeHead(302, { location: signIn.url, 'cache-control': 'no-store' }).end();
  }

  /** Back from the IdP: the person must be the one the link was made for; their browser is bound to the flow. */
  private async verified(
    req: NodeRequest,
    res: ServerResponse,
    connections: UserConnections,
    login: CompanyIdpLogin,
    binding: BrowserBinding,
  ) {
    const startedAt = Date.now();
    const url = new URL(req.url ?? '/', 'http://connect.invalid');
    const verifying = await connections.takeState<Verifying>(`verify|${url.searchParams.get('state') ?? ''}`);
    const pending = verifying && (await connections.pending(verifying.id));
    if (!verifying || !pending) return sendPage(res, 400, 'Link expired', 'Start again from your client.');
    let claims: Record<string, unknown>;
    try {
      claims = await login.finish(url.search, verifying);
    } catch (error) {
      return sendPage(
        res,
        400,
        'Sign-in failed',
        `The identity provider's answer was not accepted: ${(error as Error).message}`,
      );
    }
    const person: SignedIn = { sub: String(claims.sub), oid: typeof claims.oid === 'string' ? claims.oid : null };
    if (!samePerson(person, pending)) {
      const who = person.sub;
      this.audit.record({
        startedAt,
        method: 'connect/verify',
        principal: who,
        target: pending.target,
        details: { for: pending.owner },
        outcome: 'denied',
        error: `the link was made for ${pending.owner}, and ${who} opened it: refused`,
        remoteAddress: this.addresses.of(req) ?? null,
      });
      return sendPage(res, 403, 'Not your link', 'This link was made for another person. Ask your own client for one.');
    }
    const authorization = connections.authorizationOf(pending.target)!;
    const next = await authorization.start();
    const browser = binding.issue();
    await connections.putState(`authorize|${next.state}`, {
      id: pending.id,
      state: next.state,
      codeVerifier: next.codeVerifier,
      person,
      browser: browser.bound,
    } satisfies Authorizing);
    await connections.putState(`browser|${browser.bound.cookie}`, {
      ...browser.bound,
      person: person.sub,
    } satisfies BrowserSignIn);
    res.writeHead(302, { location: next.url, 'cache-control': 'no-store', 'set-cookie': browser.setCookie }).end();
  }

  /**
   * Back from the API's authorization server: only in the browser that passed the company-IdP
   * check, for the person the link was made for; then the code is redeemed, the tokens sealed and kept.
   */
  private async callback(req: NodeRequest, res: ServerResponse, connections: UserConnections, binding: BrowserBinding) {
    const startedAt = Date.now();
    const url = new URL(req.url ?? '/', 'http://connect.invalid');
    // Spent whatever follows: a state is good for one try.
    const authorizing = await connections.takeState<Authorizing>(`authorize|${url.searchParams.get('state') ?? ''}`);
    const pending = authorizing && (await connections.pending(authorizing.id));
    if (!authorizing?.browser || !pending) return sendPage(res, 400, 'Link expired', 'Start again from your client.');
    const record = (
      outcome: 'ok' | 'denied',
      error?: string,
      account?: string | null,
      principal: string | null = pending.owner,
    ) =>
      this.audit.record({
        startedAt,
        method: 'connect/callback',
        principal,
        target: pending.target,
        details: principal === pending.owner ? { account: account ?? null } : { for: pending.owner },
        outcome,
        ...(error && { error }),
        remoteAddress: this.addresses.of(req) ?? null,
      });
    if (!binding.holds(req.headers, authorizing.browser)) {
      const who = await this.signedInWith(req, connections, binding);
      record(
        'denied',
        `the API's answer for ${pending.owner}'s link came to a browser that did not sign in for it` +
          `${who ? ` (it signed in as ${who})` : ''}: refused before the code was redeemed`,
        null,
        who,
      );
      return sendPage(
        res,
        403,
        'Not your sign-in',
        'This page must open in the browser that signed in for the link. Start again from your client.',
      );
    }
    const spent = { 'set-cookie': binding.spend(authorizing.browser.cookie) };
    await connections.takeState(`browser|${authorizing.browser.cookie}`);
    if (!samePerson(authorizing.person, pending)) {
      record(
        'denied',
        `the link was made for ${pending.owner}, and ${authorizing.person.sub} signed in for it: refused`,
        null,
        authorizing.person.sub,
      );
      return sendPage(
        res,
        403,
        'Not your link',
        'This link was made for another person. Ask your own client for one.',
        spent,
      );
    }
    if (url.searchParams.get('error')) {
      record('denied', `the API's authorization server said: ${url.searchParams.get('error')}`);
      return sendPage(
        res,
        400,
        'Not connected',
        `The API's sign-in ended with ${url.searchParams.get('error')}.`,
        spent,
      );
    }
    let tokens;
    try {
      tokens = await connections.authorizationOf(pending.target)!.finish(url.search, authorizing);
    } catch (error) {
      record('denied', (error as Error).message);
      return sendPage(
        res,
        400,
        'Not connected',
        `The API's authorization server's answer was not accepted: ${(error as Error).message}`,
        spent,
      );
    }
    await connections.complete(pending, tokens);
    record('ok', undefined, tokens.account);
    sendPage(res, 200, 'Connected', 'Your account is connected. You can go back to your client.', spent);
  }

  /** Who signed in with the request's browser for a connect link of theirs (its other flows' cookies), if anyone. */
  private async signedInWith(
    req: NodeRequest,
    connections: UserConnections,
    binding: BrowserBinding,
  ): Promise<string | null> {
    for (const [cookie, value] of binding.presented(req.headers)) {
      const signIn = await connections.peekState<BrowserSignIn>(`browser|${cookie}`);
      if (signIn && binding.matches(value, signIn)) return signIn.person;
    }
    return null;
  }

  /** The caller's own connections: listed (`GET`), or one revoked (`DELETE ?target=api%20crm`). */
  private async accounts(req: NodeRequest, res: ServerResponse, connections: UserConnections) {
    const result = await this.authenticator.authenticate(req.headers);
    if (!result.ok) return sendJson(res, 401, { error: 'unauthenticated', message: result.description });
    const subject = result.principal.id;
    if (req.method === 'DELETE') {
      const target = new URL(req.url ?? '/', 'http://connect.invalid').searchParams.get('target') ?? undefined;
      return sendJson(res, 200, { revoked: await connections.revoke({ subject, target }, subject) });
    }
    sendJson(res, 200, { connections: await connections.list(subject) });
  }
}

/** The person who signed in is the one the link was made for (Entra: by `oid`, stable across apps). */
function samePerson(person: SignedIn, pending: PendingConnection): boolean {
  if (pending.ownerOid !== null && person.oid !== null) return person.oid === pending.ownerOid;
  return person.sub === pending.owner;
}
