import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { hashApiKey, type AuditRecord } from '#libs/security';
import { launchChromium, openConnectLink, startCompanyIdp, type CompanyIdp } from '../support/company-idp';
import { startDeskProcess, type DeskProcess } from '../support/desk-process';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { freePort } from '../support/free-port';
import { TrustedIdp } from './trusted-idp';

/**
 * Who calls in a cell: a writer of the surface, a reader of it, an approver, no one, or a stranger;
 * `agent` is the writer as governance sees any agent (over stdio, an operator without the admin role).
 */
export type Role = 'caller' | 'reader' | 'approver' | 'anonymous' | 'invalid' | 'agent';

/** The scopes of a writer: every tool of the desk (and the upstream's, the API's) is theirs. */
const WRITER_SCOPES = ['tickets:read', 'tickets:write', 'kb:read', 'reports'];
const READER_SCOPES = ['tickets:read', 'kb:read'];

/** The facade desk's registrations: at the company IdP (sign-in), at the CRM (connected accounts). */
const FACADE_AT_IDP = { id: 'matrix-facade', secret: 'matrix-facade-secret-0123456789abcdef' };
export const FACADE_AT_CRM = { id: 'matrix-facade-at-crm', secret: 'matrix-facade-crm-secret-0123456789ab' };

/** How many calls of one tool a principal makes per window before it is throttled (every desk here). */
export const THROTTLE_LIMIT = 5;
/** A report takes five steps of this: long enough to cancel it, or to stop the host under it. */
export const REPORT_STEP_MS = 700;
/** How long a stop waits for calls in flight: shorter than a report, so a report in flight is cancelled. */
export const SHUTDOWN_TIMEOUT_MS = 800;

/** A desk process of the matrix, and how to start it again (on the same port) after a stop. */
export interface MatrixHost {
  readonly name: string;
  readonly auditFile: string;
  process: DeskProcess;
  /** `http://127.0.0.1:<port>` */
  readonly base: string;
  restart(): Promise<void>;
}

/**
 * The hosts every cell of the matrix calls, on real processes:
 * - `upstream`: another support desk, the gateway's upstream and the REST API `rest.apis` imports;
 * - `desk`: the support desk over Streamable HTTP (stateful), federating `upstream`'s MCP tools
 *   (`deskb_*`) and importing its REST API (`deskb_api_*`), sharing its state through Redis with
 *   the command line and in-process app of the matrix;
 * - `stateless`: the support desk in stateless mode, with tool search (`call_tool`);
 * - `fastify`: the support desk on Fastify.
 * - `facade`: the support desk running its own authorization server (`AUTH_MODE=facade`): its
 *   callers hold its tokens, got through its token endpoint with ID-JAGs of the matrix's trusted
 *   IdP; it imports `upstreamx`'s REST API with `credential: 'token-exchange'`;
 * - `upstreamx`: another desk whose callers hold tokens of `facade` (`AUTH_MODE=oauth`).
 * - `crm`: another desk whose callers hold tokens of the CRM's own authorization server (a second
 *   oidc-provider); `facade` imports its REST API with `credential: { mode: 'user' }`: each caller
 *   connects their CRM account once, in chromium, signing in at the company IdP (the facade's
 *   IdP, a real oidc-provider) and at the CRM.
 * One API keys file: a writer and a reader per surface (their own throttling budgets, their own
 * records), an approver, and the gateway's own key at the upstream.
 */
export class MatrixWorld {
  private readonly dir = mkdtempSync(join(tmpdir(), 'matrix-'));
  private readonly keys = new Map<string, string>();
  /** What each principal may do: its API key's scopes and roles, its facade token's too. */
  private readonly grants = new Map<string, { scopes: string[]; roles: string[] }>();
  readonly keysFile = join(this.dir, 'api-keys.json');
  readonly hosts = new Map<string, MatrixHost>();
  redis!: RedisServer;
  readonly idp = new TrustedIdp();
  /** Where the facade's people sign in (and prove who they are before they connect an account). */
  companyIdp!: CompanyIdp;
  /** The CRM's own authorization server, where people connect their CRM account. */
  crmIdp!: CompanyIdp;
  private browser: Promise<Browser> | undefined;
  private readonly secret = randomBytes(32).toString('base64');

  constructor(private readonly surfaces: readonly string[]) {
    const keys = [
      ...surfaces.flatMap((surface) => [
        { principal: principalOf('caller', surface), scopes: WRITER_SCOPES, roles: [] },
        { principal: principalOf('reader', surface), scopes: READER_SCOPES, roles: [] },
      ]),
      { principal: 'approver', scopes: ['tickets:read'], roles: ['approver'] },
      { principal: 'admin', scopes: WRITER_SCOPES, roles: ['admin'] },
      { principal: 'gateway', scopes: WRITER_SCOPES, roles: [] },
    ].map(({ principal, scopes, roles }) => {
      const key = `mk-${principal}-${randomBytes(12).toString('hex')}`;
      this.keys.set(principal, key);
      this.grants.set(principal, { scopes, roles });
      return { principal, scopes, roles, hash: hashApiKey(key) };
    });
    writeFileSync(this.keysFile, JSON.stringify({ keys }));
  }

  /** The matrix's client at the facade (RFC 7591), registered once: registration is limited per address. */
  private facadeClient: Promise<{ client_id: string; client_secret: string }> | undefined;

  /**
   * A token of the `facade` desk's own authorization server for `principal` (with the scopes and
   * roles its API key has elsewhere): the matrix's client (registered once), the trusted IdP
   * issues an ID-JAG, the token endpoint redeems it (the JWT bearer grant). A restarted facade has
   * new keys and forgets its clients: told `invalid_client`, the client registers again, as an
   * MCP client does.
   */
  async facadeToken(principal: string, again = true): Promise<string> {
    const base = this.host('facade').base;
    const { scopes, roles } = this.grants.get(principal)!;
    this.facadeClient ??= fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'matrix', redirect_uris: ['http://127.0.0.1:1/callback'] }),
    }).then((answer) => answer.json() as Promise<{ client_id: string; client_secret: string }>);
    const registered = await this.facadeClient;
    const assertion = await this.idp.assertion({
      sub: principal,
      audience: base,
      resource: `${base}/mcp`,
      clientId: registered.client_id,
      scope: scopes.join(' '),
      roles,
    });
    const answer = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${registered.client_id}:${registered.client_secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }),
    });
    const tokens = (await answer.json()) as { access_token?: string; error?: string };
    if (tokens.error === 'invalid_client' && again) {
      this.facadeClient = undefined;
      return this.facadeToken(principal, false);
    }
    if (!tokens.access_token) throw new Error(`the facade issued no token for ${principal}: ${JSON.stringify(tokens)}`);
    return tokens.access_token;
  }

  /** The raw API key of `principal`. */
  keyOf(principal: string): string {
    const key = this.keys.get(principal);
    if (!key) throw new Error(`no key for ${principal}`);
    return key;
  }

  /** What every desk of the matrix shares: keys, throttling, the report's pace, the drain. */
  env(name: string, extra: Record<string, string> = {}): Record<string, string> {
    return {
      AUTH_MODE: 'apiKey',
      MCP_API_KEYS_FILE: this.keysFile,
      THROTTLE_LIMIT: String(THROTTLE_LIMIT),
      THROTTLE_TTL_MS: '60000',
      SUPPORT_REPORT_STEP_MS: String(REPORT_STEP_MS),
      MCP_SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
      MCP_REQUEST_STATE_SECRET: this.secret,
      AUDIT_FILE: join(this.dir, `${name}.jsonl`),
      AUDIT_CHAIN: name,
      MCP_REPLICA: name,
      VIRTUAL_SERVERS_FILE: join(this.dir, `${name}.virtual-servers.json`),
      LOG_LEVEL: 'warn',
      ...extra,
    };
  }

  /** The file a trail is written to: the command line's runs write beside the file they are given (`cli.cli.jsonl`). */
  auditFile(name: string): string {
    return join(this.dir, name === 'cli' ? `${name}.cli.jsonl` : `${name}.jsonl`);
  }

  /** Every record of a host's trail, as written so far (whole lines). */
  trail(name: string): AuditRecord[] {
    let text: string;
    try {
      text = readFileSync(this.auditFile(name), 'utf8');
    } catch {
      return [];
    }
    // A record is whole once its line ends: the last one may be read while the host writes it.
    return text
      .slice(0, text.lastIndexOf('\n') + 1)
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as AuditRecord);
  }

  /** A file of the matrix's own (upstream and API lists for the desk). */
  file(name: string, content: unknown): string {
    const path = join(this.dir, name);
    writeFileSync(path, JSON.stringify(content));
    return path;
  }

  async start(): Promise<void> {
    this.redis = await startRedisServer();
    await this.idp.start();
    const upstream = await this.startHost('upstream', { THROTTLE_LIMIT: '100000' });
    const upstreams = this.file('upstreams.json', {
      upstreams: [
        {
          name: 'deskb',
          transport: { type: 'http', url: `${upstream.base}/mcp`, headers: { 'x-api-key': this.keyOf('gateway') } },
          scopes: ['tickets:write'],
          // The desk upstream confirms its own destructive tools: asked once, there (docs/gateway.md).
          confirm: 'none',
          timeoutMs: 30_000,
          // Pinned (docs/governance.md): every surface is served the pinned, accepted definitions.
          pin: true,
        },
      ],
    });
    const apis = this.file('rest-apis.json', {
      apis: [
        {
          name: 'deskb_api',
          document: `${upstream.base}/docs-json`,
          baseUrl: upstream.base,
          credentials: { headers: { 'x-api-key': this.keyOf('gateway') } },
          prefix: 'deskb_api_',
          scopes: ['tickets:write'],
          confirm: { skip: { operationIds: ['createTicket', 'updateTicket'] } },
          timeoutMs: 30_000,
          pin: true,
        },
      ],
    });
    const [facadePort, upstreamxPort, crmPort] = [await freePort(), await freePort(), await freePort()];
    const facade = `http://127.0.0.1:${facadePort}`;
    const upstreamx = `http://127.0.0.1:${upstreamxPort}`;
    const crm = `http://127.0.0.1:${crmPort}`;
    const startFacade = async () => {
      [this.companyIdp, this.crmIdp] = await Promise.all([
        startCompanyIdp({
          clients: [
            {
              client_id: FACADE_AT_IDP.id,
              client_secret: FACADE_AT_IDP.secret,
              redirect_uris: [`${facade}/oauth/callback`, `${facade}/connect/verified`],
              grant_types: ['authorization_code'],
            },
          ],
          accounts: {},
        }),
        startCompanyIdp({
          clients: [
            {
              client_id: FACADE_AT_CRM.id,
              client_secret: FACADE_AT_CRM.secret,
              redirect_uris: [`${facade}/connect/callback`],
              grant_types: ['authorization_code', 'refresh_token'],
            },
          ],
          accounts: {},
          // What a connected account may do at the CRM desk: what the matrix's writers may.
          resourceScope: WRITER_SCOPES.join(' '),
        }),
      ]);
      await Promise.all([
        this.startHost(
          'upstreamx',
          {
            AUTH_MODE: 'oauth',
            OAUTH_ISSUER: facade,
            OAUTH_JWKS_URI: `${facade}/oauth/jwks`,
            MCP_RESOURCE_URL: `${upstreamx}/mcp`,
            THROTTLE_LIMIT: '100000',
          },
          upstreamxPort,
        ),
        this.startHost(
          'crm',
          {
            AUTH_MODE: 'oauth',
            OAUTH_ISSUER: this.crmIdp.issuer,
            OAUTH_JWKS_URI: `${this.crmIdp.issuer}/jwks`,
            MCP_RESOURCE_URL: `${crm}/mcp`,
            THROTTLE_LIMIT: '100000',
          },
          crmPort,
        ),
      ]);
      const downstreamApis = this.file('rest-apis-facade.json', {
        apis: [
          {
            name: 'upstreamx_api',
            document: `${upstreamx}/docs-json`,
            baseUrl: upstreamx,
            // The caller's identity: a token of the facade for upstreamx, the caller as subject.
            credential: { mode: 'token-exchange', audience: `${upstreamx}/mcp` },
            prefix: 'upstreamx_api_',
            scopes: ['tickets:write'],
            confirm: { skip: { operationIds: ['createTicket', 'updateTicket'] } },
            timeoutMs: 30_000,
          },
          {
            name: 'crm_api',
            document: `${crm}/docs-json`,
            baseUrl: crm,
            // The caller's own CRM account, connected once: a token of the CRM for its API.
            credential: {
              mode: 'user',
              authorization: {
                issuer: this.crmIdp.issuer,
                clientId: FACADE_AT_CRM.id,
                clientSecret: FACADE_AT_CRM.secret,
                scopes: ['openid', 'offline_access', ...WRITER_SCOPES],
                resource: `${crm}/mcp`,
              },
            },
            prefix: 'crm_api_',
            scopes: ['tickets:write'],
            confirm: { skip: { operationIds: ['createTicket', 'updateTicket'] } },
            timeoutMs: 30_000,
          },
        ],
      });
      await this.startHost(
        'facade',
        {
          AUTH_MODE: 'facade',
          MCP_RESOURCE_URL: `${facade}/mcp`,
          // The matrix's callers come by ID-JAG of the trusted IdP; they sign in at the company IdP
          // only to prove who they are when they connect their CRM account.
          IDP_ISSUER: this.companyIdp.issuer,
          IDP_CLIENT_ID: FACADE_AT_IDP.id,
          IDP_CLIENT_SECRET: FACADE_AT_IDP.secret,
          IDP_TRUSTED_ISSUER: this.idp.issuer,
          IDP_TRUSTED_JWKS_URI: this.idp.jwksUri,
          // The matrix's people are the company IdP's too: they prove who they are there to connect an account.
          IDP_TRUSTED_SAME_DIRECTORY: 'true',
          REST_APIS_FILE: downstreamApis,
          CONNECTIONS_KEY: randomBytes(32).toString('base64'),
        },
        facadePort,
      );
    };
    await Promise.all([
      startFacade(),
      this.startHost('desk', {
        GATEWAY_UPSTREAMS_FILE: upstreams,
        REST_APIS_FILE: apis,
        REDIS_URL: this.redis.url,
        VIRTUAL_SERVERS_ALLOW_HOSTS: '127.0.0.1',
      }),
      this.startHost('stateless', { MCP_MODE: 'stateless', MCP_TOOL_SEARCH: 'on' }),
      this.startHost('fastify', { HTTP_PLATFORM: 'fastify' }),
    ]);
    // The same upstream once more, added at run time through the desk's admin API (a virtual server).
    const added = await fetch(`${this.host('desk').base}/admin/api/servers/upstreams`, {
      method: 'POST',
      headers: { 'x-api-key': this.keyOf('admin'), 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'deskv',
        transport: { type: 'http', url: `${upstream.base}/mcp`, headers: { 'x-api-key': this.keyOf('gateway') } },
        scopes: ['tickets:write'],
        confirm: 'none',
        timeoutMs: 30_000,
      }),
    });
    if (added.status !== 200)
      throw new Error(`the virtual server was not added: ${added.status} ${await added.text()}`);
    // Composed virtual servers, endpoints of their own: that upstream's tools at /mcp/deskv, and
    // the Fastify desk's own tools at /mcp/local (docs/virtual-servers.md).
    await this.compose('desk', {
      name: 'deskv',
      path: '/mcp/deskv',
      title: 'The other desk, added at run time',
      credentials: { scopes: ['tickets:read'] },
      select: [{ from: 'upstream', name: 'deskv' }],
    });
    await this.compose('fastify', {
      name: 'desk-local',
      path: '/mcp/local',
      select: [
        {
          from: 'local',
          entries: ['search_*', 'get_*', 'create_ticket', 'close_ticket', 'export_ticket_report'],
        },
      ],
    });
  }

  /** Adds a composed virtual server to `host` through its admin API. */
  private async compose(host: string, server: Record<string, unknown>): Promise<void> {
    const composed = await fetch(`${this.host(host).base}/admin/api/servers/composed`, {
      method: 'POST',
      headers: { 'x-api-key': this.keyOf('admin'), 'content-type': 'application/json' },
      body: JSON.stringify(server),
    });
    if (composed.status !== 200)
      throw new Error(`the composed server was not added: ${composed.status} ${await composed.text()}`);
  }

  /** What the command line and the in-process app share with `desk`: its Redis (approvals, throttling). */
  sharedEnv(name: string, extra: Record<string, string> = {}): Record<string, string> {
    return this.env(name, { REDIS_URL: this.redis.url, ...extra });
  }

  private async startHost(name: string, extra: Record<string, string>, port?: number): Promise<MatrixHost> {
    const env = this.env(name, extra);
    const started = await startDeskProcess(env, { port });
    const host: MatrixHost = {
      name,
      auditFile: this.auditFile(name),
      process: started,
      base: `http://127.0.0.1:${started.port}`,
      restart: async () => {
        await host.process.stop();
        host.process = await startDeskProcess(env, { port: started.port });
      },
    };
    this.hosts.set(name, host);
    return host;
  }

  host(name: string): MatrixHost {
    const host = this.hosts.get(name);
    if (!host) throw new Error(`no host ${name}`);
    return host;
  }

  /**
   * Connects `principal`'s CRM account at the facade unless it is connected (the facade keeps
   * connections in process: a restart forgets them): `call` is a first call through the CRM API,
   * made by a client that opens the connect link it is given in chromium, where the person signs
   * in at the company IdP as themselves and at the CRM as `<principal>.crm`.
   */
  async connectCrmAccount(
    principal: string,
    call: (openLink: (url: string) => Promise<'accept'>) => Promise<void>,
  ): Promise<void> {
    const facade = this.host('facade').base;
    const headers = { authorization: `Bearer ${await this.facadeToken(principal)}` };
    const listed = (await (await fetch(`${facade}/connect/accounts`, { headers })).json()) as {
      connections: { target: string }[];
    };
    if (listed.connections.some((connection) => connection.target === 'api crm_api')) return;
    this.browser ??= launchChromium();
    const browser = await this.browser;
    await call(async (url) => {
      const page = await openConnectLink(browser, url, [principal, `${principal}.crm`], facade);
      if (page.status !== 'Connected') throw new Error(`${principal} did not connect: ${page.status} ${page.text}`);
      return 'accept';
    });
  }

  async stop(): Promise<void> {
    for (const host of this.hosts.values()) await host.process.stop();
    await (await this.browser)?.close();
    await Promise.all([this.companyIdp?.stop(), this.crmIdp?.stop()]);
    await this.redis?.stop();
    await this.idp.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The principal a role of a surface calls as (`approver` is one for every surface). */
export function principalOf(role: 'caller' | 'reader', surface: string): string {
  return `${role}.${surface}`;
}
