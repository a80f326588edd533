import { readFileSync } from 'node:fs';
import type { McpApiKey, McpAuthOptions, McpAuthorizationServerOptions, McpDownstreamOptions } from 'nest-mcp-host';
import { PostgresAuthorizationServerStore } from 'nest-mcp-host/postgres';
import type { HostEnvironment } from './host.config';
import { ALL_DESK_SCOPES } from './support/desk.scopes';

/** The local operator: every caller when authentication is off, and the stdio principal. */
export const LOCAL_OPERATOR: LocalOperator = { id: 'local-operator', scopes: [...ALL_DESK_SCOPES], roles: ['admin'] };

/** The principal the desk names without a credential (the `auth: none` principal, `stdioPrincipal`). */
interface LocalOperator {
  id: string;
  scopes: string[];
  roles: string[];
}

/**
 * Who calls over stdio, and from the command line without a key: the local operator, with the
 * scopes MCP_STDIO_SCOPES grants (every scope by default), e.g. `tickets:read,kb:read` for a
 * desktop assistant that may only read, and the roles MCP_STDIO_ROLES grants (`admin` by default;
 * empty for an operator the desk's governance treats as any agent).
 */
export function stdioOperator(env: Pick<HostEnvironment, 'MCP_STDIO_SCOPES' | 'MCP_STDIO_ROLES'>): LocalOperator {
  return { ...LOCAL_OPERATOR, scopes: [...env.MCP_STDIO_SCOPES], roles: [...env.MCP_STDIO_ROLES] };
}

/** The `auth` option of the host from its environment. @throws Error when the key file cannot be read */
export function authOptions(
  env: Pick<
    HostEnvironment,
    'AUTH_MODE' | 'MCP_API_KEYS_FILE' | 'OAUTH_ISSUER' | 'OAUTH_JWKS_URI' | 'MCP_RESOURCE_URL' | 'OAUTH_REQUIRED_SCOPES'
  >,
): McpAuthOptions {
  if (env.AUTH_MODE === 'none') return { mode: 'none', principal: LOCAL_OPERATOR };
  if (env.AUTH_MODE === 'facade')
    // The desk's own authorization server issues the tokens (issuer and keys: its own); the IdP's
    // app roles or groups named like the desk's scopes (tickets:read, …) and roles (admin, approver) grant them.
    return {
      mode: 'oauth',
      resource: env.MCP_RESOURCE_URL!,
      requiredScopes: env.OAUTH_REQUIRED_SCOPES,
      scopesSupported: [...ALL_DESK_SCOPES],
      claims: {
        scopes: {
          from: ['scope', 'scp', 'roles', 'groups'],
          map: Object.fromEntries(ALL_DESK_SCOPES.map((scope) => [scope, [scope]])),
        },
        roles: { from: ['roles', 'groups'], map: { admin: ['admin'], approver: ['approver'] } },
      },
    };
  if (env.AUTH_MODE === 'oauth') {
    return {
      mode: 'oauth',
      issuer: env.OAUTH_ISSUER!,
      jwksUri: env.OAUTH_JWKS_URI!,
      resource: env.MCP_RESOURCE_URL!,
      requiredScopes: env.OAUTH_REQUIRED_SCOPES,
      scopesSupported: [...ALL_DESK_SCOPES],
    };
  }
  let keys: McpApiKey[];
  try {
    keys = (JSON.parse(readFileSync(env.MCP_API_KEYS_FILE, 'utf8')) as { keys: McpApiKey[] }).keys;
  } catch (error) {
    throw new Error(
      `MCP_API_KEYS_FILE="${env.MCP_API_KEYS_FILE}" cannot be read as { "keys": [...] }: ${(error as Error).message}`,
    );
  }
  return { mode: 'apiKey', keys };
}

/**
 * `AUTH_MODE=facade`: the desk runs an authorization server in front of the company IdP
 * (IDP_ISSUER, IDP_CLIENT_ID, IDP_CLIENT_SECRET; redirect URI `<origin of MCP_RESOURCE_URL>/oauth/callback`),
 * so that clients which cannot register at the IdP sign in through it; with IDP_TRUSTED_ISSUER and
 * IDP_TRUSTED_JWKS_URI it takes that IdP's ID-JAGs (enterprise-managed authorization). With
 * DATABASE_URL its registered clients and sign-ins live in PostgreSQL (they outlive a restart, every
 * replica shares them); else on the cluster's Redis with REDIS_URL, else in memory. CIMD_TRUSTED_HOSTS,
 * CIMD_ALLOW_HOSTS and CIMD_CA_FILE set its policy for client metadata documents.
 * @throws Error when CIMD_CA_FILE cannot be read
 */
export function authorizationServerOptions(
  env: Pick<
    HostEnvironment,
    | 'AUTH_MODE'
    | 'IDP_ISSUER'
    | 'IDP_CLIENT_ID'
    | 'IDP_CLIENT_SECRET'
    | 'IDP_TRUSTED_ISSUER'
    | 'IDP_TRUSTED_JWKS_URI'
    | 'DATABASE_URL'
    | 'CIMD_TRUSTED_HOSTS'
    | 'CIMD_ALLOW_HOSTS'
    | 'CIMD_CA_FILE'
  >,
): McpAuthorizationServerOptions | undefined {
  if (env.AUTH_MODE !== 'facade') return undefined;
  let ca: string | undefined;
  if (env.CIMD_CA_FILE)
    try {
      ca = readFileSync(env.CIMD_CA_FILE, 'utf8');
    } catch (error) {
      throw new Error(
        `CIMD_CA_FILE="${env.CIMD_CA_FILE}" cannot be read as PEM certificates: ${(error as Error).message}`,
      );
    }
  return {
    idp: { issuer: env.IDP_ISSUER!, clientId: env.IDP_CLIENT_ID!, clientSecret: env.IDP_CLIENT_SECRET! },
    ...(env.IDP_TRUSTED_ISSUER && {
      trustedIdps: [{ issuer: env.IDP_TRUSTED_ISSUER, jwksUri: env.IDP_TRUSTED_JWKS_URI! }],
    }),
    clientMetadataDocuments: {
      ...(env.CIMD_TRUSTED_HOSTS.length > 0 && { trustedHosts: env.CIMD_TRUSTED_HOSTS }),
      ...(env.CIMD_ALLOW_HOSTS.length > 0 && { allowHosts: env.CIMD_ALLOW_HOSTS }),
      ...(ca && { ca }),
    },
    ...(env.DATABASE_URL && { store: new PostgresAuthorizationServerStore({ connectionString: env.DATABASE_URL }) }),
  };
}

/** The accounts people connect themselves (REST APIs and upstreams with `credential: { mode: 'user' }`), sealed with CONNECTIONS_KEY. */
export function downstreamOptions(env: Pick<HostEnvironment, 'CONNECTIONS_KEY'>): McpDownstreamOptions | undefined {
  return env.CONNECTIONS_KEY ? { connections: { encryptionKey: env.CONNECTIONS_KEY } } : undefined;
}
