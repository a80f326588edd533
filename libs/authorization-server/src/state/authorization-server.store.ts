import { Inject } from '@nestjs/common';

/**
 * What the authorization server keeps between requests: pending sign-ins, authorization codes,
 * refresh tokens and their grants, registered clients, cached client metadata documents, the
 * `jti` of every ID-JAG redeemed, and the signing keys. Every replica of a host must see the same
 * store, so that a code issued by one is redeemed at another and an ID-JAG replayed to another is
 * refused; a store that outlives the process (PostgreSQL: `PostgresAuthorizationServerStore`, or
 * the cluster's Redis) keeps registered clients and sign-ins across a restart. Values are JSON
 * text; keys are namespaced by the caller.
 *
 * Contract: `take`, `claim` and `increment` are atomic (two replicas taking the same code: one
 * gets it; two registrations counted at once: each gets its own number); a
 * store that cannot answer rejects, and the authorization server then refuses the request
 * (`temporarily_unavailable`): it never issues a token it could not record, nor accepts a grant
 * whose single use it could not check.
 */
export interface AuthorizationServerStore {
  /** Keeps `value` under `key` for `ttlMs`. */
  put(key: string, value: string, ttlMs: number): Promise<void>;
  get(key: string): Promise<string | undefined>;
  /** Reads and deletes at once: a second take of the key finds nothing. */
  take(key: string): Promise<string | undefined>;
  /** Keeps the key for `ttlMs` only if it is absent: `false` when it was there already. */
  claim(key: string, ttlMs: number): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Every live entry whose key starts with `prefix`. */
  list(prefix: string): Promise<[key: string, value: string][]>;
  /**
   * Adds one to the counter at `key` and returns its new value: 1 when the key was absent or
   * expired, which then lives `ttlMs` (later increments leave its expiry as it is, or move it no
   * sooner). The registrations of one client address in a window are counted with it.
   */
  increment(key: string, ttlMs: number): Promise<number>;
  /** How many live entries have a key that starts with `prefix` (the registered clients, against their cap). */
  count(prefix: string): Promise<number>;
  /** Releases what the store holds (a pool of connections); the host calls it at shutdown. */
  close?(): Promise<void>;
}

/** Token of the `AuthorizationServerStore`. */
export const MCP_AUTHORIZATION_SERVER_STORE = Symbol('MCP:AUTHORIZATION_SERVER_STORE');

/** Injects the `AuthorizationServerStore`. */
export const InjectAuthorizationServerStore = (): ParameterDecorator => Inject(MCP_AUTHORIZATION_SERVER_STORE);
