import { Inject } from '@nestjs/common';
import { optionChecks, type OptionReport } from '#libs/core';
import type { McpAuthOptions } from '#libs/security';
import type { AuthorizationServerStore } from '../state/authorization-server.store';
import {
  checkPreRegisteredRedirects,
  resolveClientMetadataDocuments,
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
  /** Scopes asked of the IdP at sign-in. @default ['openid', 'profile', 'email'] */
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
  /** How long a sign-in lasts through refresh tokens, in seconds. @default 2_592_000 (30 days) */
  refreshTokenTtlSec?: number;
  /**
   * Client ID Metadata Documents (clients whose `client_id` is an HTTPS URL): fetched with SSRF
   * guards (public addresses only, no redirects, 64 KiB, 5 s) and cached. `trustedHosts` accepts
   * documents from the hosts listed only (a CIMD trust policy; any host when unset); `allowHosts`
   * names hosts that may resolve to private addresses (an intranet's own clients); `ca` adds
   * trusted certificates (PEM) for them. `false` turns them off.
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
  clientMetadataDocuments: ClientMetadataDocumentsOptions;
  dynamicRegistration: DynamicRegistrationLimits;
  /** The store the options name, if any (else the shared state's). */
  store: AuthorizationServerStore | undefined;
  clients: McpPreRegisteredClient[];
  trustedIdps: McpTrustedIdp[];
  scopesSupported: string[] | undefined;
  endpoints: {
    metadata: string;
    authorize: string;
    callback: string;
    token: string;
    register: string;
    revoke: string;
    jwks: string;
  };
}

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
 */
export function resolveAuthorizationServerOptions(
  o: Record<string, unknown>,
  auth: McpAuthOptions,
  report: OptionReport,
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
  const refreshTokenTtlSec = checks.integer('refreshTokenTtlSec', 2_592_000, 60);
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
      scopes: idp.scopes ?? ['openid', 'profile', 'email'],
    },
    accessTokenTtlSec,
    refreshTokenTtlSec,
    clientMetadataDocuments,
    dynamicRegistration,
    store,
    clients: Array.isArray(clients) ? clients : [],
    trustedIdps: Array.isArray(trustedIdps) ? trustedIdps : [],
    scopesSupported: auth.scopesSupported,
    endpoints: {
      metadata: `${issuerUrl.origin}/.well-known/oauth-authorization-server${issuerPath}`,
      authorize: `${base}/authorize`,
      callback: `${base}/callback`,
      token: `${base}/token`,
      register: `${base}/register`,
      revoke: `${base}/revoke`,
      jwks: `${base}/jwks`,
    },
  };
}
