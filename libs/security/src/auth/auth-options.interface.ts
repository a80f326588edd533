import type { McpClaimsMapping } from './claims-mapping';

/** One API key, stored only as its SHA-256 hash (`hashApiKey(key)`). */
export interface McpApiKey {
  /** `sha256:<hex>` of the key. */
  hash: string;
  /** The principal the key stands for. */
  principal: string;
  scopes?: string[];
  roles?: string[];
  /** ISO date after which the key is refused. */
  expiresAt?: string;
}

/**
 * No authentication: every HTTP caller is the same principal. The host then refuses to listen
 * on anything but loopback unless `allowPublicBind` says otherwise.
 */
export interface McpNoAuth {
  mode: 'none';
  /** Who every caller is. @default { id: 'anonymous', scopes: [], roles: [] } */
  principal?: { id: string; scopes?: string[]; roles?: string[] };
  /** Allow listening on a non-loopback address without authentication (not recommended). @default false */
  allowPublicBind?: boolean;
}

/** API keys, sent as `Authorization: Bearer <key>` or `X-API-Key: <key>`. */
export interface McpApiKeyAuth {
  mode: 'apiKey';
  keys: McpApiKey[];
}

/**
 * An OAuth 2.1 resource server: JWT access tokens checked against the issuer's JWKS. With the
 * `authorizationServer` option, the issuer is the host's own authorization server (the facade in
 * front of the company IdP): `issuer` and `jwksUri` may then be left out, and its tokens are
 * checked with its keys in process.
 */
export interface McpOAuthAuth {
  mode: 'oauth';
  /** Expected `iss`; also published as the authorization server. Required, unless the `authorizationServer` option is on: @default its issuer */
  issuer?: string;
  /** Where the issuer's signing keys are (refetched when a token names an unknown `kid`). @default the `authorizationServer`'s */
  jwksUri?: string;
  /** This server's canonical URL (RFC 8707 resource), e.g. `https://mcp.desk.example/mcp`; tokens must name it in `aud`. */
  resource: string;
  /** Accepted audiences besides `resource`. */
  audiences?: string[];
  /** Scopes every request needs (403 `insufficient_scope` otherwise). */
  requiredScopes?: string[];
  /** Scopes published in the protected resource metadata. */
  scopesSupported?: string[];
  /** Tolerance for `exp`/`nbf`, in seconds. @default 30 */
  clockSkewSec?: number;
  /** The claim holding roles (`claims.roles` says more). @default 'roles' */
  rolesClaim?: string;
  /**
   * How the IdP's claims become the host's scopes and roles (Entra `roles`/`scp`, Okta `groups`,
   * Keycloak `realm_access.roles`, any claim). The tokens of the host's own authorization server
   * already carry the host's scopes and roles: this applies to the IdP's claims when it signs
   * a person in, there.
   * @default scopes from `scope`/`scp`, roles from `rolesClaim`
   */
  claims?: McpClaimsMapping;
}

/**
 * The `auth` option of `McpModule`: who may call the HTTP endpoint.
 *
 * @example
 * ```ts
 * auth: { mode: 'apiKey', keys: [{ hash: hashApiKey(process.env.DESK_KEY!), principal: 'desk-bot', scopes: ['tickets:read'] }] }
 * auth: {
 *   mode: 'oauth',
 *   issuer: 'https://login.example.com',
 *   jwksUri: 'https://login.example.com/.well-known/jwks.json',
 *   resource: 'https://mcp.example.com/mcp',
 * }
 * ```
 */
export type McpAuthOptions = McpNoAuth | McpApiKeyAuth | McpOAuthAuth;
