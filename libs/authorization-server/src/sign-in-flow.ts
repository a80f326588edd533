import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ClientRegistry } from './clients/client-registry';
import { allowsRedirect, type OAuthClient } from './clients/oauth-client';
import { redirectsToLoopbackOnly } from './client-rules/redirect-uris';
import { redirectHostOf, sourceOf, type ConsentRegistry } from './consent/consent-registry';
import type { BrowserAnswer, ConsentsPage, FacadeBrowser } from './browser-answer';
import type { Entitlement } from './grants/grant-policy';
import type { GrantSubject } from './grants/token-service';
import { OAuthError } from './errors/oauth-error';
import type { CompanyIdpLogin } from './idp/company-idp-login';
import type { IdpSessionSeal } from './idp/idp-session-seal';
import type { Person } from './idp/people';
import type { AuthorizationServerOptions } from './options/authorization-server.options';
import type { AuthorizationServerStore } from './state/authorization-server.store';

/** A sign-in waits this long for the person to come back from the IdP, and a consent page for its answer. */
const PENDING_TTL_MS = 10 * 60_000;
const CODE_TTL_MS = 60_000;
/** The person's own page stays signed in this long after the IdP sign-in. */
const MANAGE_TTL_MS = 15 * 60_000;

/** An authorization code, redeemed once at the token endpoint. */
export interface IssuedCode {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  subject: GrantSubject;
  entitlement: Entitlement;
  /** The IdP's tokens, sealed, for the sign-in's refreshes. */
  idpSession?: string;
}

/** A sign-in sent to the IdP, bound to the browser that started it (its cookie's digest): only it may come back. */
interface PendingSignIn {
  browser: string;
  nonce: string;
  codeVerifier: string;
  idpState: string;
}

/** An authorization request, checked, waiting for the person to come back from the IdP. */
interface PendingAuthorization extends PendingSignIn {
  purpose: 'authorize';
  clientId: string;
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
  scopes: string[] | null;
  /** The person's own client opened the authorization URL (`Sec-Fetch-Site: none`), not another site. */
  direct: boolean;
}

/** A sign-in for the person's own page. */
interface PendingManage extends PendingSignIn {
  purpose: 'manage';
}

/** A consent page shown, waiting for the person's answer. */
interface Consenting {
  csrf: string;
  browser: string;
  pending: PendingAuthorization;
  person: Person;
  code: Omit<IssuedCode, 'clientId' | 'redirectUri' | 'codeChallenge'>;
}

interface Managing {
  csrf: string;
  person: Person;
  /** Who the page says is signed in. */
  shown: ConsentsPage['person'];
}

/** What the flow needs of the authorization server. */
export interface SignInFlowParts {
  clients: ClientRegistry;
  consents: ConsentRegistry;
  login: CompanyIdpLogin;
  seal: IdpSessionSeal;
  /** The company IdP's person for these claims, with what they may have (narrowed to `asked`). */
  signedIn(
    claims: Record<string, unknown>,
    asked: string[] | null,
  ): { person: Person; subject: GrantSubject; entitlement: Entitlement };
  endSignIns(filter: { subject: string; clientId: string }): Promise<number>;
}

/**
 * The browser's side of a sign-in at the facade, in the order a person goes through it:
 * 1. `authorize`: the client's request is checked (client, exact redirect URI, PKCE, resource;
 *    with `approvedClientsOnly`, an administrator's approval); the browser is bound to it (its
 *    cookie's digest is kept with the request) and sent to the company IdP;
 * 2. `callback`: the IdP sends the person back — only to the browser that started — and the
 *    facade knows who they are; unless they approved this client before (same scopes or fewer,
 *    same redirect host, and the authorization URL opened by their own client, not by another
 *    site), the consent page names the client, where its metadata came from, where the code goes
 *    and what the tokens will carry;
 * 3. `decide`: the answer is taken only from the browser that signed in, with the page's one-time
 *    CSRF token and from the facade's own origin; approval is remembered per person and client,
 *    and only then does the client get a code (a refusal answers `access_denied`).
 * `ownConsents` is the person's own page (after an IdP sign-in) to see and revoke what they approved.
 */
export class SignInFlow {
  constructor(
    private readonly options: AuthorizationServerOptions,
    private readonly store: AuthorizationServerStore,
    private readonly parts: SignInFlowParts,
  ) {}

  async authorize(query: URLSearchParams, browser: FacadeBrowser): Promise<BrowserAnswer> {
    let client: OAuthClient;
    try {
      client = await this.parts.clients.find(query.get('client_id') ?? undefined);
    } catch (error) {
      if (error instanceof OAuthError) return { status: 400, error: error.error, description: error.description };
      throw error;
    }
    const clientId = client.clientId;
    const redirectUri = query.get('redirect_uri') ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : '');
    if (!allowsRedirect(client, redirectUri))
      return {
        status: 400,
        error: 'invalid_request',
        description: `redirect_uri is not one of the client's (${client.kind})`,
        clientId,
      };
    const state = query.get('state');
    const back = (error: string, description: string): BrowserAnswer => ({
      redirect: this.redirect(redirectUri, { error, error_description: description, state }),
      clientId,
    });
    if (query.get('response_type') !== 'code')
      return back('unsupported_response_type', 'only response_type=code is supported');
    const codeChallenge = query.get('code_challenge');
    if (!codeChallenge || query.get('code_challenge_method') !== 'S256')
      return back('invalid_request', 'PKCE is required: code_challenge with code_challenge_method=S256');
    const resources = query.getAll('resource');
    if (resources.some((resource) => resource !== this.options.resource))
      return back('invalid_target', `this authorization server issues tokens for ${this.options.resource} only`);
    if (this.options.consent.approvedClientsOnly && !(await this.parts.consents.approved(client))) {
      await this.parts.consents.request(client);
      return {
        status: 403,
        error: 'access_denied',
        description: `no administrator has approved the client ${JSON.stringify(client.name ?? clientId)} yet: it is on their list`,
        clientId,
      };
    }
    const scope = query.get('scope');
    const signIn = await this.parts.login.start();
    const pending: PendingAuthorization = {
      purpose: 'authorize',
      clientId,
      redirectUri,
      state,
      codeChallenge,
      scopes: scope ? scope.split(' ').filter(Boolean) : null,
      browser: browserDigest(browser.id),
      direct: browser.fetchSite === 'none',
      nonce: signIn.nonce,
      codeVerifier: signIn.codeVerifier,
      idpState: signIn.state,
    };
    await this.store.put(`pending:${signIn.state}`, JSON.stringify(pending), PENDING_TTL_MS);
    return { redirect: signIn.url, clientId, details: { to: 'identity provider' } };
  }

  async callback(query: URLSearchParams, search: string, browser: FacadeBrowser): Promise<BrowserAnswer> {
    const stored = await this.store.take(`pending:${query.get('state') ?? ''}`);
    if (!stored)
      return {
        status: 400,
        error: 'invalid_request',
        description: 'unknown or expired sign-in: start again from the client',
      };
    const pending = JSON.parse(stored) as PendingAuthorization | PendingManage;
    const clientId = pending.purpose === 'authorize' ? pending.clientId : undefined;
    if (pending.browser !== browserDigest(browser.id))
      return {
        status: 400,
        error: 'invalid_request',
        description: 'this sign-in did not start in this browser: start again from the client',
        clientId,
      };
    if (pending.purpose === 'manage') return this.managed(query, search, pending);
    const back = (params: Record<string, string | null>, subject?: string): BrowserAnswer => ({
      redirect: this.redirect(pending.redirectUri, { ...params, state: pending.state }),
      clientId,
      ...(subject && { subject }),
    });
    if (query.get('error'))
      return back({
        error: 'access_denied',
        error_description: `the identity provider said: ${query.get('error_description') ?? query.get('error')}`,
      });
    let session;
    try {
      session = await this.parts.login.complete(search, {
        state: pending.idpState,
        nonce: pending.nonce,
        codeVerifier: pending.codeVerifier,
      });
    } catch (error) {
      return back({
        error: 'access_denied',
        error_description: `the sign-in at the identity provider failed: ${(error as Error).message}`,
      });
    }
    const { person, subject, entitlement } = this.parts.signedIn(session.claims, pending.scopes);
    const client = await this.parts.clients.find(pending.clientId);
    // An administrator may have withdrawn the client while the person was at the IdP.
    if (this.options.consent.approvedClientsOnly && !(await this.parts.consents.approved(client)))
      return back({ error: 'access_denied', error_description: 'no administrator approves this client' }, person.id);
    const code = { subject, entitlement, idpSession: this.parts.seal.seal(session, person) };
    if (pending.direct && (await this.parts.consents.covers(person, client, subject.scopes, pending.redirectUri)))
      return {
        ...back({ code: await this.issue(pending, code) }, person.id),
        details: { consent: 'remembered', scopes: subject.scopes },
      };
    const request = randomBytes(24).toString('base64url');
    const consenting: Consenting = {
      csrf: randomBytes(24).toString('base64url'),
      browser: pending.browser,
      pending,
      person,
      code,
    };
    await this.store.put(`consenting:${request}`, JSON.stringify(consenting), PENDING_TTL_MS);
    return {
      page: {
        kind: 'consent',
        action: this.options.endpoints.consent,
        request,
        csrf: consenting.csrf,
        person: personOf(subject),
        client: {
          id: client.clientId,
          name: client.name ?? null,
          source: sourceOf(client),
          redirectUri: pending.redirectUri,
          redirectHost: redirectHostOf(pending.redirectUri),
          loopback: redirectsToLoopbackOnly([pending.redirectUri]),
        },
        scopes: subject.scopes,
        roles: subject.roles,
      },
      clientId,
      subject: person.id,
      details: { consent: 'asked', direct: pending.direct },
    };
  }

  /** The consent page's answer: only from the browser that signed in, with the page's CSRF token, from this origin. */
  async decide(form: URLSearchParams, browser: FacadeBrowser): Promise<BrowserAnswer> {
    const key = `consenting:${form.get('request') ?? ''}`;
    const stored = await this.store.get(key);
    if (!stored)
      return { status: 400, error: 'invalid_request', description: 'this approval expired or was already answered' };
    const consenting = JSON.parse(stored) as Consenting;
    const { pending, person } = consenting;
    const refused = this.formRefusal(form, browser, consenting);
    if (refused) return { ...refused, clientId: pending.clientId, subject: person.id };
    if (!(await this.store.take(key)))
      return { status: 400, error: 'invalid_request', description: 'this approval was already answered' };
    const decision = form.get('decision');
    const back = (params: Record<string, string | null>): BrowserAnswer => ({
      redirect: this.redirect(pending.redirectUri, { ...params, state: pending.state }),
      clientId: pending.clientId,
      subject: person.id,
      details: { decision, scopes: consenting.code.subject.scopes },
    });
    if (decision !== 'allow')
      return back({ error: 'access_denied', error_description: 'the person did not approve this client' });
    const client = await this.parts.clients.find(pending.clientId);
    await this.parts.consents.remember(person, client, consenting.code.subject.scopes, pending.redirectUri);
    return back({ code: await this.issue(pending, consenting.code) });
  }

  /** The person's own page: their approvals (GET), or one revoked (POST); an IdP sign-in first. */
  async ownConsents(browser: FacadeBrowser, form?: URLSearchParams): Promise<BrowserAnswer> {
    const key = `manage:${browserDigest(browser.id)}`;
    const stored = await this.store.get(key);
    if (!stored) {
      if (form) return { status: 403, error: 'access_denied', description: 'sign in again to change your approvals' };
      const signIn = await this.parts.login.start();
      const pending: PendingManage = {
        purpose: 'manage',
        browser: browserDigest(browser.id),
        nonce: signIn.nonce,
        codeVerifier: signIn.codeVerifier,
        idpState: signIn.state,
      };
      await this.store.put(`pending:${signIn.state}`, JSON.stringify(pending), PENDING_TTL_MS);
      return { redirect: signIn.url };
    }
    const managing = JSON.parse(stored) as Managing;
    const { person } = managing;
    if (form) {
      const refused = this.formRefusal(form, browser, { ...managing, browser: browserDigest(browser.id) });
      if (refused) return { ...refused, subject: person.id };
      const clientId = form.get('client_id') ?? '';
      const forgotten = await this.parts.consents.revoke({ subject: person.id, clientId });
      const ended = await this.parts.endSignIns({ subject: person.id, clientId });
      return {
        redirect: this.options.endpoints.consents,
        subject: person.id,
        clientId,
        details: { revoked: forgotten.length, signInsEnded: ended },
      };
    }
    return {
      page: {
        kind: 'consents',
        action: this.options.endpoints.consents,
        csrf: managing.csrf,
        person: managing.shown,
        consents: await this.parts.consents.list(person),
      },
      subject: person.id,
    };
  }

  /** An authorization code: taken once. @throws OAuthError `invalid_grant` */
  async redeem(code: string | null): Promise<IssuedCode> {
    const stored = await this.store.take(`code:${code ?? ''}`);
    if (!stored) throw new OAuthError('invalid_grant', 'the authorization code is unknown, expired or already used');
    return JSON.parse(stored) as IssuedCode;
  }

  /** Back from the IdP for the person's own page: they are known, for a while, in this browser. */
  private async managed(query: URLSearchParams, search: string, pending: PendingManage): Promise<BrowserAnswer> {
    if (query.get('error'))
      return { status: 400, error: 'access_denied', description: 'the identity provider did not sign you in' };
    const session = await this.parts.login.complete(search, {
      state: pending.idpState,
      nonce: pending.nonce,
      codeVerifier: pending.codeVerifier,
    });
    const { person, subject } = this.parts.signedIn(session.claims, null);
    const managing: Managing = { csrf: randomBytes(24).toString('base64url'), person, shown: personOf(subject) };
    await this.store.put(`manage:${pending.browser}`, JSON.stringify(managing), MANAGE_TTL_MS);
    return { redirect: this.options.endpoints.consents, subject: person.id, details: { to: 'own approvals' } };
  }

  /** Why a form of the facade's pages is refused: another browser, a cross-site post, a wrong CSRF token. */
  private formRefusal(
    form: URLSearchParams,
    browser: FacadeBrowser,
    expected: { csrf: string; browser: string },
  ): BrowserAnswer | undefined {
    const origin = new URL(this.options.issuer).origin;
    if (expected.browser !== browserDigest(browser.id))
      return { status: 403, error: 'access_denied', description: 'this is not the browser that signed in' };
    if ((browser.origin !== null && browser.origin !== origin) || browser.fetchSite === 'cross-site')
      return { status: 403, error: 'access_denied', description: `the form was not sent from ${origin}` };
    const sent = Buffer.from(form.get('csrf') ?? '');
    const wanted = Buffer.from(expected.csrf);
    if (sent.length !== wanted.length || !timingSafeEqual(sent, wanted))
      return { status: 403, error: 'access_denied', description: 'the form is not the one this server showed (CSRF)' };
    return undefined;
  }

  private async issue(pending: PendingAuthorization, code: Consenting['code']): Promise<string> {
    const value = randomBytes(32).toString('base64url');
    const issued: IssuedCode = {
      clientId: pending.clientId,
      redirectUri: pending.redirectUri,
      codeChallenge: pending.codeChallenge,
      ...code,
    };
    await this.store.put(`code:${value}`, JSON.stringify(issued), CODE_TTL_MS);
    return value;
  }

  private redirect(uri: string, params: Record<string, string | null>): string {
    const url = new URL(uri);
    for (const [key, value] of Object.entries({ ...params, iss: this.options.issuer }))
      if (value !== null) url.searchParams.set(key, value);
    return url.href;
  }
}

function personOf(subject: GrantSubject): { id: string; name?: string; email?: string } {
  return {
    id: subject.sub,
    ...(subject.name && { name: subject.name }),
    ...(subject.email && { email: subject.email }),
  };
}

/** A digest of a browser's binding cookie (the store never holds the cookie itself). */
export const browserDigest = (id: string) => hash('sha256', id, 'base64url');
