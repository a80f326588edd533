import { PostgresExpiringStore, type PostgresTableOptions } from '#libs/core';
import type { UserConnectionStore } from './user-connection.store';

export interface PostgresUserConnectionStoreOptions extends PostgresTableOptions {
  /** The table (a plain identifier), created on first use. @default 'mcp_user_connections' */
  table?: string;
}

/**
 * The accounts people connected, in PostgreSQL (`pg`), for hosts of several replicas: one row
 * per key, the value sealed by the host (AES-256-GCM; the database never holds a token in the
 * clear), its expiry a column. The table is created on first use; expired rows are swept by
 * writes. `take` is one `DELETE … RETURNING`, so two replicas taking one key: one gets it.
 *
 * @example
 * ```ts
 * downstream: { connections: { encryptionKey: process.env.CONNECTIONS_KEY!, store: new PostgresUserConnectionStore({ connectionString: process.env.DATABASE_URL }) } }
 * ```
 * @throws Error at construction when `table` is not a plain identifier, or no server is given.
 */
export class PostgresUserConnectionStore extends PostgresExpiringStore implements UserConnectionStore {
  constructor(options: PostgresUserConnectionStoreOptions) {
    super('PostgresUserConnectionStore', options, 'mcp_user_connections');
  }
}
