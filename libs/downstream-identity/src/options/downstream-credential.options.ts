import { optionChecks, type OptionReport } from '#libs/core';

/**
 * The API's own OAuth authorization server, where a person connects their account (the
 * `'user'` credential): by its issuer (its discovery document is read), or by its endpoints.
 * The host is registered there once as a confidential client, with the redirect URI
 * `<downstream.connections.publicUrl><path>/callback`.
 * @example
 * { issuer: 'https://login.crm.example', clientId: 'desk', clientSecret: process.env.CRM_SECRET!, scopes: ['openid', 'offline_access'] }
 */
export interface McpConnectAuthorization {
  /** The authorization server's issuer (OpenID Connect or RFC 8414 discovery). */
  issuer?: string;
  /** Without `issuer`: where the person authorizes. */
  authorizationEndpoint?: string;
  /** Without `issuer`: where codes and refresh tokens are redeemed. */
  tokenEndpoint?: string;
  /** RFC 7009: told when the person or an administrator disconnects the account. */
  revocationEndpoint?: string;
  clientId: string;
  clientSecret: string;
  /** Scopes asked for (include the one that yields refresh tokens, e.g. `offline_access`). */
  scopes?: string[];
  /**
   * RFC 8707: the API's identifier, sent as `resource` when the person authorizes and with every
   * code and refresh grant, for authorization servers that issue tokens for one API at a time
   * (a JWT whose `aud` is the API). @example 'https://crm.example/api'
   */
  resource?: string;
}

/**
 * The caller's identity downstream, by RFC 8693 token exchange: a token for this upstream or
 * API (`audience`) with the caller as subject and the host as actor, issued by the company IdP
 * (`at: 'idp'`, the caller's own IdP token as the subject token) or by the host's authorization
 * server (`at: 'facade'`, in process). Cached per caller and audience until shortly before it expires.
 * @example
 * { mode: 'token-exchange', audience: 'https://wiki.example/mcp', scope: 'wiki:read', at: 'idp' }
 */
export interface McpTokenExchangeCredential {
  mode: 'token-exchange';
  /** The downstream's identifier, as its tokens name it in `aud`. @default the upstream's URL, the API's base URL */
  audience?: string;
  /** Space-separated scopes asked for. */
  scope?: string;
  /** Where the exchange happens. @default 'facade' with the `authorizationServer` option, else 'idp' */
  at?: 'idp' | 'facade';
}

/**
 * The person's own account at the API, connected once through URL-mode elicitation (see `downstream.connections`).
 * @example
 * { mode: 'user', authorization: { issuer: 'https://login.crm.example', clientId: 'desk', clientSecret: process.env.CRM_SECRET! } }
 */
export interface McpUserCredential {
  mode: 'user';
  authorization: McpConnectAuthorization;
}

/**
 * How the host authenticates to one gateway upstream or `rest.apis` API: as itself (`'service'`,
 * its configured credentials, today's behaviour), as the caller by token exchange
 * (`'token-exchange'`), or with the person's own connected account (`{ mode: 'user', … }`). The
 * caller's own token is never passed on.
 * @example
 * credential: 'token-exchange'
 * credential: { mode: 'token-exchange', audience: 'https://wiki.example', scope: 'wiki:read' }
 * credential: { mode: 'user', authorization: { issuer: 'https://login.crm.example', clientId: 'desk', clientSecret: process.env.CRM_SECRET!, scopes: ['openid', 'offline_access', 'crm.read'] } }
 */
export type McpDownstreamCredential = 'service' | 'token-exchange' | McpTokenExchangeCredential | McpUserCredential;

/** A downstream credential, validated. */
export type DownstreamCredential =
  | { readonly mode: 'service' }
  | {
      readonly mode: 'token-exchange';
      readonly audience: string;
      readonly scope: string | undefined;
      readonly at: 'idp' | 'facade' | undefined;
    }
  | { readonly mode: 'user'; readonly authorization: Readonly<McpConnectAuthorization> & { scopes: string[] } };

export const SERVICE_CREDENTIAL: DownstreamCredential = { mode: 'service' };

const EXCHANGE_KEYS = new Set(['mode', 'audience', 'scope', 'at']);
const USER_KEYS = new Set(['mode', 'authorization']);
const AUTHORIZATION_KEYS = new Set([
  'issuer',
  'authorizationEndpoint',
  'tokenEndpoint',
  'revocationEndpoint',
  'clientId',
  'clientSecret',
  'scopes',
  'resource',
]);

/**
 * Validates a `credential` option of an upstream or an API.
 * @param where where it is (`gateway.upstreams[0].credential`), for messages
 * @param audience the default audience of a token exchange (the upstream's or API's URL)
 */
export function resolveDownstreamCredential(
  value: unknown,
  where: string,
  audience: string | undefined,
  report: OptionReport,
): DownstreamCredential {
  if (value === undefined || value === 'service') return SERVICE_CREDENTIAL;
  const given = value === 'token-exchange' ? { mode: 'token-exchange' } : value;
  if (value === 'user') {
    report(
      where,
      "'user' needs the API's authorization server",
      "credential: { mode: 'user', authorization: { issuer: 'https://login.crm.example', clientId: '…', clientSecret: '…' } }",
    );
    return SERVICE_CREDENTIAL;
  }
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    report(
      where,
      `must be 'service', 'token-exchange' or { mode, … }, got ${JSON.stringify(value)}`,
      "e.g. credential: 'token-exchange'",
    );
    return SERVICE_CREDENTIAL;
  }
  const o = given as Record<string, unknown>;
  if (o.mode === 'token-exchange') {
    optionChecks(o, report, `${where}.`).known(EXCHANGE_KEYS);
    const target = o.audience ?? audience;
    if (typeof target !== 'string' || target === '')
      report(`${where}.audience`, 'is required (no URL to take it from)', "e.g. audience: 'https://wiki.example'");
    if (o.scope !== undefined && typeof o.scope !== 'string')
      report(`${where}.scope`, 'must be a space-separated string', "e.g. scope: 'wiki:read'");
    if (o.at !== undefined && o.at !== 'idp' && o.at !== 'facade')
      report(`${where}.at`, `must be 'idp' or 'facade', got ${JSON.stringify(o.at)}`, "e.g. at: 'idp'");
    return {
      mode: 'token-exchange',
      audience: typeof target === 'string' ? target : '',
      scope: typeof o.scope === 'string' ? o.scope : undefined,
      at: o.at === 'idp' || o.at === 'facade' ? o.at : undefined,
    };
  }
  if (o.mode === 'user') {
    optionChecks(o, report, `${where}.`).known(USER_KEYS);
    const a = o.authorization as Record<string, unknown> | undefined;
    const at = `${where}.authorization`;
    if (typeof a !== 'object' || a === null || Array.isArray(a)) {
      report(
        at,
        'is required',
        "authorization: { issuer: 'https://login.crm.example', clientId: '…', clientSecret: '…' }",
      );
      return SERVICE_CREDENTIAL;
    }
    optionChecks(a, report, `${at}.`).known(AUTHORIZATION_KEYS);
    const url = (key: string) => {
      if (a[key] !== undefined && !isHttpUrl(a[key]))
        report(
          `${at}.${key}`,
          `must be an absolute http(s) URL, got ${JSON.stringify(a[key])}`,
          `e.g. ${key}: 'https://login.crm.example'`,
        );
    };
    for (const key of ['issuer', 'authorizationEndpoint', 'tokenEndpoint', 'revocationEndpoint']) url(key);
    if (a.resource !== undefined && !isResourceIndicator(a.resource))
      report(
        `${at}.resource`,
        `must be an absolute URI without a fragment (RFC 8707), got ${JSON.stringify(a.resource)}`,
        "e.g. resource: 'https://crm.example/api'",
      );
    if (a.issuer === undefined && (a.authorizationEndpoint === undefined || a.tokenEndpoint === undefined))
      report(
        at,
        'needs issuer, or both authorizationEndpoint and tokenEndpoint',
        "e.g. issuer: 'https://login.crm.example' (its discovery document names the endpoints)",
      );
    for (const key of ['clientId', 'clientSecret'])
      if (typeof a[key] !== 'string' || a[key] === '')
        report(
          `${at}.${key}`,
          'must be a non-empty string',
          `the host's ${key} at the API's authorization server; is the environment variable set?`,
        );
    const scopes = a.scopes ?? [];
    if (!Array.isArray(scopes) || scopes.some((scope) => typeof scope !== 'string' || scope === ''))
      report(`${at}.scopes`, 'must be a list of scopes', "e.g. scopes: ['openid', 'offline_access', 'crm.read']");
    return {
      mode: 'user',
      authorization: { ...(a as unknown as McpConnectAuthorization), scopes: Array.isArray(scopes) ? [...scopes] : [] },
    };
  }
  report(
    `${where}.mode`,
    `must be 'service', 'token-exchange' or 'user', got ${JSON.stringify(o.mode)}`,
    "e.g. credential: 'token-exchange'",
  );
  return SERVICE_CREDENTIAL;
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string' || !URL.canParse(value)) return false;
  const { protocol } = new URL(value);
  return protocol === 'http:' || protocol === 'https:';
}

/** RFC 8707 §2: a resource indicator is an absolute URI with no fragment. */
function isResourceIndicator(value: unknown): boolean {
  return typeof value === 'string' && URL.canParse(value) && !value.includes('#');
}
