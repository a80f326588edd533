import { PostgresExpiringStore, type PostgresTableOptions } from '#libs/core';
import type { AuthorizationServerStore } from './authorization-server.store';

/** Options of `PostgresAuthorizationServerStore`. */
export interface PostgresAuthorizationServerStoreOptions extends PostgresTableOptions {
  /** The table (a plain identifier), created on first use. @default 'mcp_authorization_server' */
  table?: string;
}

/**
 * The authorization server's state in PostgreSQL (`pg`): registered clients, consent decisions,
 * pending sign-ins, codes, refresh tokens and the signing key ring outlive a restart of the host,
 * and every replica on the same database serves the facade. One row per key, its expiry a column;
 * the table is created on first use and expired rows are swept by writes. `take` is one
 * `DELETE … RETURNING`, `claim` and `increment` one `INSERT … ON CONFLICT` each, so two replicas
 * asking at once get one answer each. A database that cannot be reached makes every operation
 * reject: the facade then refuses the request (fail-closed).
 *
 * @example
 * ```ts
 * import { PostgresAuthorizationServerStore } from 'nest-mcp-host/postgres';
 * authorizationServer: {
 *   idp: { issuer, clientId, clientSecret },
 *   store: new PostgresAuthorizationServerStore({ connectionString: process.env.DATABASE_URL }),
 * }
 * ```
 * @throws Error at construction when `table` is not a plain identifier, or no server is given.
 */
export class PostgresAuthorizationServerStore extends PostgresExpiringStore implements AuthorizationServerStore {
  constructor(options: PostgresAuthorizationServerStoreOptions) {
    super('PostgresAuthorizationServerStore', options, 'mcp_authorization_server');
  }
}
