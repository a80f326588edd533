import { randomBytes } from 'node:crypto';
import { McpToolError, SealBroken, SealedBox, type McpCallContext, type McpPrincipal } from '#libs/core';
import { targetId, type DownstreamTarget } from '../options/downstream-target';
import type { ConnectionSettings } from '../options/downstream.options';
import type { DownstreamAudit } from '../audit/downstream-audit';
import { ApiAuthorization, type ApiTokens } from './api-authorization';
import type { UserConnectionStore } from '../store/user-connection.store';

/** A connected account, as sealed in the store (never in the clear there). */
interface Connection extends ApiTokens {
  owner: string;
  target: string;
  connectedAt: number;
}

/** A connection a person was asked to make, until they finish it. */
export interface PendingConnection {
  id: string;
  owner: string;
  /** The owner's `oid` claim (Entra: stable across apps, unlike `sub`). */
  ownerOid: string | null;
  target: string;
}

/**
 * A connected account as the person and the administrators see it (no token).
 * @example
 * { subject: 'alice', target: 'api crm', account: 'alice@crm.example', connectedAt: '2026-11-28T10:00:00.000Z', accessTokenExpiresAt: '2026-11-28T11:00:00.000Z' }
 */
export interface McpUserConnection {
  subject: string;
  target: string;
  account: string | null;
  connectedAt: string;
  accessTokenExpiresAt: string;
}

/** How long a connection is kept without use: a year (its refresh token decides sooner). */
const CONNECTION_TTL_MS = 365 * 86_400_000;
/** An access token is refreshed this long before it expires (or at half its life). */
const REFRESH_BEFORE_MS = 60_000;
const POLL_MS = 250;

const connectionKey = (target: string, owner: string) => `conn|${target}|${owner}`;
/** The target and the owner of a connection's key (the owner last: it may hold a `|`). */
const partsOf = (key: string): [target: string, owner: string] => {
  const [, target, ...owner] = key.split('|');
  return [target, owner.join('|')];
};

/**
 * The accounts people connect to an API themselves (`credential: { mode: 'user' }`): found for
 * the caller, refreshed before they expire, and — when there is none — asked for through a
 * URL-mode elicitation: the person opens the host's connect page, proves at the company IdP that
 * they are the caller, and authorizes the host at the API's authorization server. The tokens are
 * sealed (AES-256-GCM) for their owner and API; a sealed connection that does not open for the
 * caller is refused and audited.
 *
 * @example
 * ```ts
 * const connections = app.get(UserConnections);
 * await connections.list('alice'); // [{ subject: 'alice', target: 'api crm', account: 'alice@crm', … }]
 * await connections.revoke({ subject: 'alice' }, 'an-admin');
 * ```
 */
export class UserConnections {
  private readonly box: SealedBox;
  private readonly authorizations = new Map<string, ApiAuthorization>();
  private readonly refreshing = new Map<string, Promise<Connection>>();

  constructor(
    private readonly options: ConnectionSettings,
    readonly store: UserConnectionStore,
    private readonly audit: DownstreamAudit,
  ) {
    this.box = new SealedBox(options.key);
  }

  /** The connect pages' base URL (`https://mcp.desk.example/connect`). */
  get base(): string {
    return `${this.options.publicUrl}${this.options.path}`;
  }

  /** Makes a target's authorization known (at start-up). */
  register(target: DownstreamTarget): void {
    if (target.credential.mode !== 'user') return;
    this.authorizations.set(
      targetId(target),
      new ApiAuthorization(target.credential.authorization, `${this.base}/callback`),
    );
  }

  authorizationOf(target: string): ApiAuthorization | undefined {
    return this.authorizations.get(target);
  }

  /**
   * The caller's access token at the target: their connection's, refreshed when it is about to
   * expire; or, with none, the person is asked to connect (URL-mode elicitation) and the call
   * waits for it.
   * @throws McpToolError when the caller is no person, declines, cannot be asked, or the connection is refused
   */
  async tokenFor(target: string, context: McpCallContext): Promise<{ token: string; account: string | null }> {
    const owner = context.caller;
    if (typeof owner.claims.sub !== 'string')
      throw new McpToolError(
        `${target} is called with the person's own account: sign in as a person (OAuth) to use it`,
      );
    const found = await this.connectionOf(target, owner);
    if (found) {
      const fresh = await this.fresh(target, found);
      return { token: fresh.accessToken, account: fresh.account };
    }
    const pending = await this.pendingFor(target, owner);
    const url = `${this.base}/${pending.id}`;
    const message = `Connect your ${target.replace(/^(api|upstream) /, '')} account to go on`;
    if (!(context.clientCapabilities.elicitation as { url?: unknown } | undefined)?.url)
      throw new McpToolError(`${message}: open ${url} in your browser, then call again.`);
    const answer = await context.elicit({ mode: 'url', elicitationId: pending.id, url, message } as never, {
      key: `connect ${target}`,
      timeoutMs: this.options.pendingTtlMs,
    });
    if (answer.action !== 'accept')
      throw new McpToolError(`${target}: the account was not connected (${answer.action})`);
    const connected = await this.waitFor(target, owner, context.signal);
    context.completeElicitation(pending.id);
    return { token: connected.accessToken, account: connected.account };
  }

  /** A connection of `owner`, opened; `undefined` when there is none. @throws McpToolError when it does not open for them (audited) */
  private async connectionOf(target: string, owner: McpPrincipal): Promise<Connection | undefined> {
    const sealed = await this.store.get(connectionKey(target, owner.id));
    if (!sealed) return undefined;
    let connection: Connection;
    try {
      connection = JSON.parse(this.box.open(sealed, `${owner.id}\n${target}`)) as Connection;
      if (connection.owner !== owner.id || connection.target !== target) throw new SealBroken();
    } catch (error) {
      if (!(error instanceof SealBroken)) throw error;
      this.audit.record({
        startedAt: Date.now(),
        method: 'connect/use',
        principal: owner.id,
        target,
        outcome: 'denied',
        error: `the connected account stored for ${owner.id} was not sealed for them: refused`,
      });
      throw new McpToolError(`${target}: the connected account on record is not yours; it was refused (reconnect it)`);
    }
    return connection;
  }

  /** The connection, its access token refreshed when it is about to expire (one refresh at a time per connection). */
  private fresh(target: string, connection: Connection): Promise<Connection> {
    const lifetime = connection.expiresAt - connection.connectedAt;
    if (Date.now() < connection.expiresAt - Math.min(REFRESH_BEFORE_MS, Math.max(lifetime, 0) / 2))
      return Promise.resolve(connection);
    const key = connectionKey(target, connection.owner);
    let refresh = this.refreshing.get(key);
    if (!refresh) {
      refresh = (async () => {
        if (!connection.refreshToken) {
          await this.store.delete(key);
          throw new McpToolError(`${target}: the connected account expired; call again to reconnect it`);
        }
        let tokens: ApiTokens;
        try {
          tokens = await this.authorizations.get(target)!.refresh(connection.refreshToken, connection.account);
        } catch (error) {
          await this.store.delete(key);
          throw new McpToolError(
            `${target}: the account could not be refreshed (${(error as Error).message}); call again to reconnect it`,
          );
        }
        const next: Connection = { ...connection, ...tokens, connectedAt: Date.now() };
        await this.save(next);
        return next;
      })().finally(() => this.refreshing.delete(key));
      this.refreshing.set(key, refresh);
    }
    return refresh;
  }

  /** The person's connection in progress for the target, or a new one (the same link across a call's retries). */
  private async pendingFor(target: string, owner: McpPrincipal): Promise<PendingConnection> {
    const byOwner = `pending-by|${target}|${owner.id}`;
    const id = await this.store.get(byOwner);
    const existing = id ? await this.store.get(`pending|${id}`) : undefined;
    if (existing) return JSON.parse(this.box.open(existing, 'pending')) as PendingConnection;
    const pending: PendingConnection = {
      id: randomBytes(24).toString('base64url'),
      owner: owner.id,
      ownerOid: typeof owner.claims.oid === 'string' ? owner.claims.oid : null,
      target,
    };
    await this.store.put(
      `pending|${pending.id}`,
      this.box.seal(JSON.stringify(pending), 'pending'),
      this.options.pendingTtlMs,
    );
    await this.store.put(byOwner, pending.id, this.options.pendingTtlMs);
    this.audit.record({ startedAt: Date.now(), method: 'connect/start', principal: owner.id, target, outcome: 'ok' });
    return pending;
  }

  /** Waits until the person finished connecting (on this replica or another), or the call ends. */
  private async waitFor(target: string, owner: McpPrincipal, signal: AbortSignal): Promise<Connection> {
    const deadline = Date.now() + this.options.pendingTtlMs;
    while (Date.now() < deadline) {
      signal.throwIfAborted();
      const connection = await this.connectionOf(target, owner);
      if (connection) return connection;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    throw new McpToolError(`${target}: the account was not connected in time; call again`);
  }

  /** A pending connection by its link's id (the connect pages). */
  async pending(id: string): Promise<PendingConnection | undefined> {
    const sealed = await this.store.get(`pending|${id}`);
    return sealed ? (JSON.parse(this.box.open(sealed, 'pending')) as PendingConnection) : undefined;
  }

  /** Keeps a value of the connect pages (their state between redirects), sealed. */
  async putState(key: string, value: unknown): Promise<void> {
    await this.store.put(`state|${key}`, this.box.seal(JSON.stringify(value), 'state'), this.options.pendingTtlMs);
  }

  /** A value of the connect pages, spent (a second take finds nothing). */
  async takeState<T>(key: string): Promise<T | undefined> {
    const sealed = await this.store.take(`state|${key}`);
    return sealed ? (JSON.parse(this.box.open(sealed, 'state')) as T) : undefined;
  }

  /** A value of the connect pages, left in place. */
  async peekState<T>(key: string): Promise<T | undefined> {
    const sealed = await this.store.get(`state|${key}`);
    return sealed ? (JSON.parse(this.box.open(sealed, 'state')) as T) : undefined;
  }

  /** The person finished: their tokens are sealed and kept, and the link is spent. */
  async complete(pending: PendingConnection, tokens: ApiTokens): Promise<void> {
    await this.save({ ...tokens, owner: pending.owner, target: pending.target, connectedAt: Date.now() });
    await this.store.delete(`pending|${pending.id}`);
    await this.store.delete(`pending-by|${pending.target}|${pending.owner}`);
  }

  /** The connections (of one person, or everyone's), without their tokens. */
  async list(subject?: string): Promise<McpUserConnection[]> {
    const found: McpUserConnection[] = [];
    for (const [key, sealed] of await this.store.list('conn|')) {
      const [target, owner] = partsOf(key);
      if (subject !== undefined && owner !== subject) continue;
      try {
        const connection = JSON.parse(this.box.open(sealed, `${owner}\n${target}`)) as Connection;
        found.push({
          subject: owner,
          target,
          account: connection.account,
          connectedAt: new Date(connection.connectedAt).toISOString(),
          accessTokenExpiresAt: new Date(connection.expiresAt).toISOString(),
        });
      } catch {
        // A value that does not open is listed by no one: using it is refused, revoking it works.
      }
    }
    return found;
  }

  /** Ends connections (of a person, for a target, or both), telling the API's authorization server; returns how many. */
  async revoke(filter: { subject?: string; target?: string }, by: string | null): Promise<number> {
    let count = 0;
    for (const [key, sealed] of await this.store.list('conn|')) {
      const [target, owner] = partsOf(key);
      if (
        (filter.subject !== undefined && owner !== filter.subject) ||
        (filter.target !== undefined && target !== filter.target)
      )
        continue;
      await this.store.delete(key);
      count++;
      try {
        const connection = JSON.parse(this.box.open(sealed, `${owner}\n${target}`)) as Connection;
        const token = connection.refreshToken ?? connection.accessToken;
        await this.authorizations.get(target)?.revoke(token);
      } catch {
        // Gone here whatever the API's server says: the host will not use it again.
      }
      this.audit.record({
        startedAt: Date.now(),
        method: 'connect/revoke',
        principal: by,
        target,
        details: { subject: owner },
        outcome: 'ok',
      });
    }
    return count;
  }

  private async save(connection: Connection): Promise<void> {
    const sealed = this.box.seal(JSON.stringify(connection), `${connection.owner}\n${connection.target}`);
    await this.store.put(connectionKey(connection.target, connection.owner), sealed, CONNECTION_TTL_MS);
  }
}
