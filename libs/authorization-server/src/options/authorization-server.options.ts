import { Inject } from '@nestjs/common';
import { optionChecks, type OptionReport } from '#libs/core';
import type { McpAuthOptions } from '#libs/security';
import type { AddressRateLimit } from '../state/address-rate';
import type { AuthorizationServerStore } from '../state/authorization-server.store';
import {
  checkPreRegisteredRedirects,
  resolveClientMetadataDocuments,
  resolveAddressRate,
  resolveDynamicRegistration,
  type ClientMetadataDocumentsOptions,
  type DynamicRegistrationLimits,
  type McpClientMetadataDocuments,
  type McpDynamicRegistration,
} from './client-options';

/** The company IdP where people sign in (OpenID Connect); the host is registered there once as a confidential client. */
export interface McpCompanyIdp {
  /** The IdP's issuer, e.g. `https://login.microsoftonline.com/<tenant>/v2.0`; its discovery document is read from it. */
  issuer: string;
  /** The host's client id at the IdP. */
  clientId: string;
  /** The host's client secret at the IdP (`client_secret_basic`). */
  clientSecret: string;
  /**
   * Scopes asked of the IdP at sign-in. `offline_access` gets the IdP's refresh token, with which
   * every refresh at the facade checks the person again (see `maxSignInSec`).
   * @default ['openid', 'profile', 'email', 'offline_access']
   */
  scopes?: string[];
}

/** A client registered ahead with this authorization server (the enterprise-managed flow's clients, or any). */
export interface McpPreRegisteredClient {
  clientId: string;
  /** `sha256:<hex>` of the client secret (`hashApiKey(secret)`); absent for a public client. */
  secretHash?: string;
  /** Where authorization codes may be sent (exactly). */
  redirectUris?: string[];
  name?: string;
}

/** An identity provider whose Identity Assertion JWT Authorization Grants (ID-JAG) the token endpoint accepts. */
export interface McpTrustedIdp {
  /** The ID-JAG's `iss`. */
  issuer: string;
  /** Where its signing keys are. */
  jwksUri: string;
  /**
   * Its `sub` values name the company IdP's people (one directory behind two issuers, as an
   * Okta org and one of its custom authorization servers): its `alice` is the IdP's `alice`.
   * Otherwise its people are `<issuer>#<sub>`, never one of the IdP's.
   * @default false
   */
  sameDirectory?: boolean;
}

/** What a person is asked before a client gets a code for them, and how long their answer holds. */
export interface McpConsentOptions {
  /**
   * How long a person's approval of a client is remembered, in seconds (0: asked at every
   * sign-in). A remembered approval is used only when the client asks for no more scopes than
   * were approved, to the same redirect host, from a sign-in the person's client opened itself.
   * @default 2_592_000 (30 days)
   */
  rememberSec?: number;
  /**
   * Only clients an administrator approved (the admin API's `oauth/clients`; pre-registered
   * clients are approved by configuration) are offered to people; any other is refused before
   * the sign-in, and waits in the administrator's list.
   * @default false
   */
  approvedClientsOnly?: boolean;
}

/**
 * The `authorizationServer` option: an OAuth authorization server in front of the company IdP,
 * for the clients that cannot use the IdP directly (it offers neither Client ID Metadata
 * Documents nor dynamic registration, as Entra ID; or gates them, as Okta). People sign in at the
 * IdP; the host issues its own short-lived access tokens for `auth.resource` and rotating refresh
 * tokens. Needs `auth: { mode: 'oauth', resource }`.
 *
 * @example
 * ```ts
 * auth: { mode: 'oauth', resource: 'https://mcp.desk.example/mcp', claims: { roles: { from: ['roles'], map: { 'Desk.Admin': ['admin'] } } } },
 * authorizationServer: {
 *   issuer: 'https://mcp.desk.example',
 *   idp: { issuer: 'https://login.microsoftonline.com/<tenant>/v2.0', clientId: '<app id>', clientSecret: process.env.IDP_SECRET! },
 *   trustedIdps: [{ issuer: 'https://idp.corp.example', jwksUri: 'https://idp.corp.example/jwks' }],
 * }
 * ```
 */
export interface McpAuthorizationServerOptions {
  /** This authorization server's issuer, a public URL; its endpoints are under `<issuer>/oauth/`. @default the origin of `auth.resource` */
  issuer?: string;
  idp: McpCompanyIdp;
  /** Lifetime of an access token, in seconds. @default 300 */
  accessTokenTtlSec?: number;
  /**
   * How long a refresh token lives unused, in seconds: each refresh gives a new one for this long
   * again, never past `maxSignInSec`. @default 86_400 (1 day)
   */
  refreshTokenTtlSec?: number;
  /**
   * The longest a sign-in lasts, in seconds, however often it is refreshed: then the person signs
   * in at the IdP again. Each refresh before that checks the person at the IdP (its refresh
   * token) and ends the sign-in when the IdP refuses. @default 604_800 (7 days)
   */
  maxSignInSec?: number;
  /** The consent page the facade shows before a client gets a code. */
  consent?: McpConsentOptions;
  /**
   * How many requests one client address (an IPv6 one by its /64) may make of the facade's
   * endpoints — authorize, the IdP's callback, consent, token, revoke — per window, counted in the
   * store so that every replica counts together; past it, 429 `too_many_requests` with
   * `Retry-After`, audited. `false` counts none (a reverse proxy's limit instead). Registration has
   * its own (`dynamicRegistration.perAddress`).
   * @default { limit: 300, windowSec: 60 }
   * @example perAddress: { limit: 600, windowSec: 60 } // an office of many behind one address
   */
  perAddress?: false | { limit?: number; windowSec?: number };
  /**
   * Client ID Metadata Documents (clients whose `client_id` is an HTTPS URL): fetched with SSRF
   * guards (every address the host resolves to public, checked at the connection; no redirects;
   * at most 64 KiB, the whole answer within 5 s) and cached. `trustedHosts` accepts documents from
   * the hosts listed only (a CIMD trust policy; any host when unset); `allowHosts` names hosts that
   * may resolve to private addresses (an intranet's own clients; a cloud metadata address only when
   * listed by address); `ca` adds trusted certificates (PEM) for them. `false` turns them off.
   * @default { cacheTtlSec: 300 }
   */
  clientMetadataDocuments?: false | McpClientMetadataDocuments;
  /**
   * RFC 7591 dynamic client registration, for clients that still use it; `true` takes the default
   * limits (5,000 clients, 20 registrations per address an hour, unused ones forgotten after a day).
   * @default true
   */
  dynamicRegistration?: boolean | McpDynamicRegistration;
  /**
   * Where the authorization server keeps its state: registered clients, sign-ins, codes, keys.
   * `PostgresAuthorizationServerStore` (`nest-mcp-host/postgres`) keeps them across restarts and
   * shares them between replicas. Unset: the cluster's backplane with the `cluster` option, else
   * this process's memory (lost at a restart: registered clients must register again).
   */
  store?: AuthorizationServerStore;
  clients?: McpPreRegisteredClient[];
  /** Enterprise-managed authorization: the IdPs whose ID-JAGs the token endpoint takes (the JWT bearer grant). */
  trustedIdps?: McpTrustedIdp[];
}

/** The authorization server's options, validated, with the defaults merged and its URLs worked out. */
export interface AuthorizationServerOptions {
  issuer: string;
  /** The MCP server's resource identifier (`auth.resource`): the audience of every access token. */
  resource: string;
  idp: Required<McpCompanyIdp>;
  accessTokenTtlSec: number;
  refreshTokenTtlSec: number;
  maxSignInSec: number;
  consent: Required<McpConsentOptions>;
  /** Requests per client address to the facade's endpoints (registration aside); `false`: not counted. */
  perAddress: false | AddressRateLimit;
  /**
   * The scopes and roles that make an administrator or an approver: the facade grants them only
   * through a `claims` rule with a `map` that names them, never as a claim's value passed through.
   */
  privileged: { scopes: ReadonlySet<string>; roles: ReadonlySet<string> };
  clientMetadataDocuments: ClientMetadataDocumentsOptions;
  dynamicRegistration: DynamicRegistrationLimits;
  /** The store the options name, if any (else the shared state's). */
  store: AuthorizationServerStore | undefined;
  clients: McpPreRegisteredClient[];
  trustedIdps: Required<McpTrustedIdp>[];
  scopesSupported: string[] | undefined;
  endpoints: {
    metadata: string;
    authorize: string;
    callback: string;
    token: string;
    register: string;
    revoke: string;
    jwks: string;
    /** Where the consent page posts the person's answer. */
    consent: string;
    /** The person's own page: the clients they approved, each with a revoke button. */
    consents: string;
  };
}

/** The privileged scopes and roles when the host names none (those of the admin API and the approvers). */
export const DEFAULT_PRIVILEGED = { scopes: ['mcp:admin', 'mcp:approve'], roles: ['admin', 'approver'] };

/** Token of the resolved `AuthorizationServerOptions` (`undefined` when the option is off). */
export const MCP_AUTHORIZATION_SERVER_OPTIONS = Symbol('MCP:AUTHORIZATION_SERVER_OPTIONS');

/** Injects the `AuthorizationServerOptions`. */
export const InjectAuthorizationServerOptions = (): ParameterDecorator => Inject(MCP_AUTHORIZATION_SERVER_OPTIONS);

/** The options of `McpModule` this slice reads. */
export const AUTHORIZATION_SERVER_OPTION_KEYS = ['authorizationServer'] as const;

const KNOWN = new Set([
  'issuer',
  'idp',
  'accessTokenTtlSec',
  'refreshTokenTtlSec',
  'maxSignInSec',
  'consent',
  'perAddress',
  'clientMetadataDocuments',
  'dynamicRegistration',
  'store',
  'clients',
  'trustedIdps',
]);
const HASH = /^sha256:[0-9a-f]{64}$/;

/** Where an HTTP URL is accepted instead of HTTPS: loopback only (development and tests). */
export function isLoopbackUrl(url: URL): boolean {
  return url.hostname === 'localhost' || url.hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
}

/**
 * Validates the `authorizationServer` option and merges its defaults; `undefined` when it is off.
 * @param auth the resolved `auth` option (the facade needs `mode: 'oauth'` and its `resource`)
 * @param privileged the scopes and roles of administrators and approvers (the host's `approvals` option)
 */
export function resolveAuthorizationServerOptions(
  o: Record<string, unknown>,
  auth: McpAuthOptions,
  report: OptionReport,
  privileged: { scopes: readonly string[]; roles: readonly string[] } = DEFAULT_PRIVILEGED,
): AuthorizationServerOptions | undefined {
  const given = o.authorizationServer as Record<string, unknown> | undefined;
  if (given === undefined) return undefined;
  const at = (field: string) => `authorizationServer${field}`;
  if (typeof given !== 'object' || given === null) {
    report(at(''), 'must be an object', 'see docs/authorization-server.md');
    return undefined;
  }
  if (auth?.mode !== 'oauth' || typeof auth.resource !== 'string' || !URL.canParse(auth.resource)) {
    report(
      at(''),
      "needs auth: { mode: 'oauth', resource } (the tokens it issues are for that resource)",
      "set auth: { mode: 'oauth', resource: 'https://mcp.desk.example/mcp' }",
    );
    return undefined;
  }
  const checks = optionChecks(given, report, 'authorizationServer.');
  checks.known(KNOWN);
  const secureUrl = (field: string, value: unknown, example: string): URL | undefined => {
    if (typeof value !== 'string' || !URL.canParse(value)) {
      report(at(field), 'must be an absolute URL', `e.g. ${example}`);
      return undefined;
    }
    const url = new URL(value);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackUrl(url))) {
      report(at(field), 'must be an https URL (http only on loopback)', `e.g. ${example}`);
      return undefined;
    }
    return url;
  };
  const issuerUrl =
    given.issuer === undefined
      ? new URL(new URL(auth.resource).origin)
      : secureUrl('.issuer', given.issuer, "'https://mcp.desk.example'");
  const idp = (given.idp ?? {}) as Partial<McpCompanyIdp>;
  if (typeof given.idp !== 'object' || given.idp === null)
    report(at('.idp'), 'is required', "idp: { issuer: 'https://login.example.com', clientId: '…', clientSecret: '…' }");
  else {
    secureUrl('.idp.issuer', idp.issuer, "'https://login.microsoftonline.com/<tenant>/v2.0'");
    for (const field of ['clientId', 'clientSecret'] as const)
      if (typeof idp[field] !== 'string' || !idp[field])
        report(
          at(`.idp.${field}`),
          'is required',
          `the host's ${field} at the IdP, where it is registered as a web app`,
        );
    if (idp.scopes !== undefined && (!Array.isArray(idp.scopes) || !idp.scopes.includes('openid')))
      report(at('.idp.scopes'), "must be a list that includes 'openid'", "e.g. ['openid', 'profile', 'email']");
  }
  const accessTokenTtlSec = checks.integer('accessTokenTtlSec', 300, 30, 86_400);
  const refreshTokenTtlSec = checks.integer('refreshTokenTtlSec', 86_400, 60);
  const maxSignInSec = checks.integer('maxSignInSec', 604_800, 300);
  const consent = resolveConsent(given.consent, report);
  const perAddress = resolveAddressRate(given.perAddress, '.perAddress', 300, 60, report);
  checkScopesSupported(auth, report);
  const dynamicRegistration = resolveDynamicRegistration(given.dynamicRegistration, refreshTokenTtlSec, report);
  const clientMetadataDocuments = resolveClientMetadataDocuments(given.clientMetadataDocuments, report);
  const store = given.store as AuthorizationServerStore | undefined;
  if (store !== undefined && (typeof store !== 'object' || store === null || typeof store.increment !== 'function'))
    report(
      at('.store'),
      'must be an AuthorizationServerStore (put, get, take, claim, delete, list, increment, count)',
      "e.g. new PostgresAuthorizationServerStore({ connectionString }) from 'nest-mcp-host/postgres'",
    );
  const clients = (given.clients ?? []) as McpPreRegisteredClient[];
  if (!Array.isArray(clients))
    report(at('.clients'), 'must be a list', "e.g. [{ clientId: 'agent-app', secretHash: hashApiKey(secret) }]");
  else
    clients.forEach((client, index) => {
      if (typeof client?.clientId !== 'string' || !client.clientId)
        report(at(`.clients[${index}].clientId`), 'is required', "e.g. clientId: 'agent-app'");
      if (client?.secretHash !== undefined && !HASH.test(client.secretHash))
        report(
          at(`.clients[${index}].secretHash`),
          'is not a "sha256:<64 hex>" hash',
          'store hashApiKey(secret), never the secret',
        );
      checkPreRegisteredRedirects(index, client?.redirectUris, report);
    });
  const trustedIdps = (given.trustedIdps ?? []) as McpTrustedIdp[];
  if (!Array.isArray(trustedIdps))
    report(at('.trustedIdps'), 'must be a list', "e.g. [{ issuer: 'https://idp.corp.example', jwksUri: '…/jwks' }]");
  else
    trustedIdps.forEach((idpEntry, index) => {
      secureUrl(`.trustedIdps[${index}].issuer`, idpEntry?.issuer, "'https://idp.corp.example'");
      secureUrl(
        `.trustedIdps[${index}].jwksUri`,
        idpEntry?.jwksUri,
        "'https://idp.corp.example/.well-known/jwks.json'",
      );
      if (idpEntry?.sameDirectory !== undefined && typeof idpEntry.sameDirectory !== 'boolean')
        report(
          at(`.trustedIdps[${index}].sameDirectory`),
          'must be true or false',
          "true only when its subjects are the company IdP's (one directory)",
        );
    });
  if (!issuerUrl) return undefined;
  const issuer = issuerUrl.href.replace(/\/$/, '');
  const base = `${issuer}/oauth`;
  const issuerPath = issuerUrl.pathname === '/' ? '' : issuerUrl.pathname.replace(/\/$/, '');
  return {
    issuer,
    resource: auth.resource,
    idp: {
      issuer: idp.issuer ?? '',
      clientId: idp.clientId ?? '',
      clientSecret: idp.clientSecret ?? '',
      scopes: idp.scopes ?? ['openid', 'profile', 'email', 'offline_access'],
    },
    accessTokenTtlSec,
    refreshTokenTtlSec,
    maxSignInSec,
    consent,
    perAddress,
    privileged: { scopes: new Set(privileged.scopes), roles: new Set(privileged.roles) },
    clientMetadataDocuments,
    dynamicRegistration,
    store,
    clients: Array.isArray(clients) ? clients : [],
    trustedIdps: (Array.isArray(trustedIdps) ? trustedIdps : []).map((trusted) => ({
      issuer: trusted.issuer,
      jwksUri: trusted.jwksUri,
      sameDirectory: trusted.sameDirectory === true,
    })),
    scopesSupported: auth.scopesSupported,
    endpoints: {
      metadata: `${issuerUrl.origin}/.well-known/oauth-authorization-server${issuerPath}`,
      authorize: `${base}/authorize`,
      callback: `${base}/callback`,
      token: `${base}/token`,
      register: `${base}/register`,
      revoke: `${base}/revoke`,
      jwks: `${base}/jwks`,
      consent: `${base}/consent`,
      consents: `${base}/consents`,
    },
  };
}

function resolveConsent(given: unknown, report: OptionReport): Required<McpConsentOptions> {
  if (given !== undefined && (typeof given !== 'object' || given === null)) {
    report('authorizationServer.consent', 'must be an object', 'e.g. consent: { rememberSec: 2_592_000 }');
    return { rememberSec: 2_592_000, approvedClientsOnly: false };
  }
  const checks = optionChecks((given ?? {}) as Record<string, unknown>, report, 'authorizationServer.consent.');
  checks.known(new Set(['rememberSec', 'approvedClientsOnly']));
  return {
    rememberSec: checks.integer('rememberSec', 2_592_000, 0, 31_536_000),
    approvedClientsOnly: checks.flag('approvedClientsOnly', false),
  };
}

/** A scope the claims map grants that `scopesSupported` does not list would never be granted: said at start-up. */
function checkScopesSupported(auth: McpAuthOptions, report: OptionReport): void {
  if (auth.mode !== 'oauth' || !auth.scopesSupported) return;
  const supported = new Set(auth.scopesSupported);
  const mapped = Object.values(auth.claims?.scopes?.map ?? {}).flat();
  const missing = [...new Set(mapped.filter((scope) => typeof scope === 'string' && !supported.has(scope)))];
  if (missing.length > 0)
    report(
      'auth.claims.scopes.map',
      `grants ${missing.map((scope) => JSON.stringify(scope)).join(', ')}, which auth.scopesSupported does not list: the authorization server never grants a scope outside it`,
      'add them to auth.scopesSupported, or take them out of the map',
    );
}
