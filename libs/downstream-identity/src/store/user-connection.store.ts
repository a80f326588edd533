import { Inject } from '@nestjs/common';

/**
 * Where the accounts people connected (`credential: { mode: 'user' }`) are kept, and the
 * connections in progress. Values are sealed by the host before they get here (AES-256-GCM,
 * bound to their owner and API): the store never sees a token in the clear. Every replica must
 * see the same store, so that a connection finished on one serves the calls of another.
 *
 * Contract: `take` is atomic (a second take finds nothing); a store that cannot answer rejects,
 * and the call that needed it fails with the reason (no call goes downstream with a credential
 * the host could not check).
 *
 * @example
 * ```ts
 * downstream: { connections: { encryptionKey, store: new PostgresUserConnectionStore({ connectionString }) } }
 * ```
 */
export interface UserConnectionStore {
  /** Keeps `value` under `key` for `ttlMs`. */
  put(key: string, value: string, ttlMs: number): Promise<void>;
  get(key: string): Promise<string | undefined>;
  /** Reads and deletes at once. */
  take(key: string): Promise<string | undefined>;
  delete(key: string): Promise<void>;
  /** Every live entry whose key starts with `prefix`. */
  list(prefix: string): Promise<[key: string, value: string][]>;
}

/** Token of the `UserConnectionStore`. */
export const MCP_USER_CONNECTION_STORE = Symbol('MCP:USER_CONNECTION_STORE');

/** Injects the `UserConnectionStore`. */
export const InjectUserConnectionStore = (): ParameterDecorator => Inject(MCP_USER_CONNECTION_STORE);
