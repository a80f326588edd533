import type { AuthorizationServerStore } from '../state/authorization-server.store';
import type { AuthorizationServerOptions } from '../options/authorization-server.options';
import type { OAuthClient } from '../clients/oauth-client';
import { personKey, type Person } from '../idp/people';

/** A person's approval of a client, as the person and administrators see it. */
export interface McpOAuthConsent {
  /** The host's id for the person. */
  subject: string;
  issuer: string;
  clientId: string;
  clientName: string | null;
  /** The scopes the person approved: a sign-in asking for more is asked again. */
  scopes: string[];
  /** The host the client's codes go to (a loopback one without its port). */
  redirectHost: string;
  approvedAt: string;
  expiresAt: string;
}

/** A client an administrator approved, or one that waits for an administrator (`approvedClientsOnly`). */
export interface McpOAuthClientApproval {
  clientId: string;
  name: string | null;
  kind: OAuthClient['kind'];
  /** Where its metadata came from, in words. */
  source: string;
  redirectUris: readonly string[];
  /** When a person first asked to sign in with it (a request), or when it was approved. */
  at: string;
  /** The administrator who approved it; absent for a request. */
  approvedBy?: string;
}

/** An administrator's approval lasts until it is withdrawn (the store keeps it ten years). */
const APPROVAL_TTL_MS = 10 * 365 * 86_400_000;
/** A request waits a month for an administrator; the next sign-in attempt asks again. */
const REQUEST_TTL_MS = 30 * 86_400_000;

/**
 * The facade's consent registry, in the authorization server's store (so every replica, and any
 * store the deployment uses, sees the same): per person (issuer and subject) and client, what
 * the person approved, for `consent.rememberSec`; and the clients administrators approved
 * (`client-approval:`, until withdrawn) or that wait for them (`client-request:`, 30 days).
 */
export class ConsentRegistry {
  constructor(
    private readonly options: Pick<AuthorizationServerOptions, 'consent'>,
    private readonly store: AuthorizationServerStore,
  ) {}

  /** The person's approval of `client` that covers `scopes` to `redirectUri`'s host, if any. */
  async covers(person: Person, client: OAuthClient, scopes: readonly string[], redirectUri: string): Promise<boolean> {
    const stored = await this.store.get(consentKey(person, client.clientId));
    if (!stored) return false;
    const consent = JSON.parse(stored) as McpOAuthConsent;
    return (
      consent.subject === person.id &&
      consent.redirectHost === redirectHostOf(redirectUri) &&
      scopes.every((scope) => consent.scopes.includes(scope))
    );
  }

  /** Remembers that the person approved `client` for `scopes` (not at all when `rememberSec` is 0). */
  async remember(person: Person, client: OAuthClient, scopes: readonly string[], redirectUri: string): Promise<void> {
    const ttl = this.options.consent.rememberSec * 1000;
    if (ttl === 0) return;
    const now = Date.now();
    const consent: McpOAuthConsent = {
      subject: person.id,
      issuer: person.issuer,
      clientId: client.clientId,
      clientName: client.name ?? null,
      scopes: [...scopes],
      redirectHost: redirectHostOf(redirectUri),
      approvedAt: new Date(now).toISOString(),
      expiresAt: new Date(now + ttl).toISOString(),
    };
    await this.store.put(consentKey(person, client.clientId), JSON.stringify(consent), ttl);
  }

  /** The approvals of one person (their page), or of everyone (the admin API), newest first. */
  async list(person?: Person): Promise<McpOAuthConsent[]> {
    const prefix = person ? `consent:${personKey(person)}|` : 'consent:';
    return (await this.store.list(prefix))
      .map(([, value]) => JSON.parse(value) as McpOAuthConsent)
      .sort((a, b) => b.approvedAt.localeCompare(a.approvedAt));
  }

  /** Forgets the approvals of a person (`subject`, the host's id), of a client, or both; returns those forgotten. */
  async revoke(filter: { subject?: string; clientId?: string }): Promise<McpOAuthConsent[]> {
    const forgotten: McpOAuthConsent[] = [];
    for (const [key, value] of await this.store.list('consent:')) {
      const consent = JSON.parse(value) as McpOAuthConsent;
      if (filter.subject !== undefined && consent.subject !== filter.subject) continue;
      if (filter.clientId !== undefined && consent.clientId !== filter.clientId) continue;
      await this.store.delete(key);
      forgotten.push(consent);
    }
    return forgotten;
  }

  /** Whether an administrator approved the client (a pre-registered one is, by configuration). */
  async approved(client: OAuthClient): Promise<boolean> {
    return (
      client.kind === 'pre-registered' || (await this.store.get(`client-approval:${client.clientId}`)) !== undefined
    );
  }

  /** Puts the client on the administrators' list of requests (the first request's time stays). */
  async request(client: OAuthClient): Promise<void> {
    const key = `client-request:${client.clientId}`;
    if ((await this.store.get(key)) === undefined)
      await this.store.put(key, JSON.stringify(describeClient(client, new Date().toISOString())), REQUEST_TTL_MS);
  }

  /** An administrator approves a client: people may now consent to it. */
  async approve(client: OAuthClient, by: string): Promise<McpOAuthClientApproval> {
    const approval = { ...describeClient(client, new Date().toISOString()), approvedBy: by };
    await this.store.put(`client-approval:${client.clientId}`, JSON.stringify(approval), APPROVAL_TTL_MS);
    await this.store.delete(`client-request:${client.clientId}`);
    return approval;
  }

  /** An administrator withdraws an approval (or turns a request down); whether there was one. */
  async withdraw(clientId: string): Promise<boolean> {
    const approval = await this.store.take(`client-approval:${clientId}`);
    const request = await this.store.take(`client-request:${clientId}`);
    return approval !== undefined || request !== undefined;
  }

  /** The clients administrators approved, and those waiting for them. */
  async clients(): Promise<{ approved: McpOAuthClientApproval[]; requested: McpOAuthClientApproval[] }> {
    const read = async (prefix: string) =>
      (await this.store.list(prefix))
        .map(([, value]) => JSON.parse(value) as McpOAuthClientApproval)
        .sort((a, b) => b.at.localeCompare(a.at));
    return { approved: await read('client-approval:'), requested: await read('client-request:') };
  }
}

/** Where a client's metadata came from, in words a person and an administrator can judge. */
export function sourceOf(client: OAuthClient): string {
  switch (client.kind) {
    case 'pre-registered':
      return "configured by this server's administrators";
    case 'registered':
      return 'registered itself at this server (dynamic registration): its name is its own claim';
    case 'metadata-document':
      return `its metadata document at ${new URL(client.clientId).host}`;
  }
}

/** The host a redirect URI sends codes to; a loopback one without its port (any port is the same native app, RFC 8252). */
export function redirectHostOf(redirectUri: string): string {
  const url = new URL(redirectUri);
  const loopback = url.protocol === 'http:' && ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname);
  return `${url.protocol}//${loopback ? url.hostname : url.host}`;
}

function describeClient(client: OAuthClient, at: string): McpOAuthClientApproval {
  return {
    clientId: client.clientId,
    name: client.name ?? null,
    kind: client.kind,
    source: sourceOf(client),
    redirectUris: client.redirectUris,
    at,
  };
}

const consentKey = (person: Person, clientId: string) => `consent:${personKey(person)}|${clientId}`;
