import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import type { McpTransportKind } from '#libs/core';
import { McpInvocationError, McpInvoker } from '#libs/hosting';
import { McpApprovals } from '#libs/operations';
import type { McpPrincipal } from '#libs/core';
import { AppModule } from '../../src/app.module';
import { answerOf, resultAnswer, thrownAnswer, type Answer } from './answers';
import { principalOf, type MatrixWorld, type Role } from './matrix-world';
import { ADMIN_CELLS, ADMIN_SURFACE } from './admin-cells';

const DIST = join(__dirname, '..', '..', 'dist', 'src');

/** A tool call: the entry's name and its arguments. */
export interface Call {
  name: string;
  args: Record<string, unknown>;
}

/** The entries a surface's cells use, one per policy (so that no cell spends another's throttling budget). */
export interface Entries {
  /** Read by the audit cell. */
  read: Call;
  /** Called over its limit by the throttling cell. */
  throttled: Call;
  /** Needs a scope the surface's reader lacks. */
  hidden: Call;
  /** Held for a person's approval. */
  confirm: (ticketId: string) => Call;
  /** A report that takes seconds: cancelled, and under a stop. */
  slow: Call;
  /** Arguments it refuses, and the names the refusal must give. */
  invalid: { call: Call; named: readonly string[] };
  /** Governed by the desk's policies and guardrails (src/governance.config.ts): opens a ticket, reads one. */
  governed: { open: (args: Record<string, unknown>) => Call; read: (ticketId: string) => Call };
}

/** A caller's connection to a surface. */
export interface MatrixSession {
  list(): Promise<Answer | string[]>;
  call(call: Call, options?: { signal?: AbortSignal }): Promise<Answer>;
  /** Stops (SIGTERM, or the application's close) whatever serves this session's calls. */
  terminate(): Promise<void>;
  close(): Promise<void>;
}

/** Decides approval requests where the surface's requests are kept. */
export interface ApprovalDesk {
  /** The id of the request waiting for `principal`'s call of `tool`. */
  pending(principal: string, tool: string): Promise<string | undefined>;
  /** A decision made as the caller itself, or as an approver: its HTTP-like status and message. */
  decide(id: string, as: 'caller' | 'approver', principal: string): Promise<{ status: number; message: string }>;
}

export type PolicyId =
  | 'credential'
  | 'hidden'
  | 'approval'
  | 'throttling'
  | 'arguments'
  | 'governance'
  | 'cancellation'
  | 'audit'
  | 'shutdown';

/** How a surface answers without a credential: refused, or served as the configured local operator. */
export type WithoutCredential = 'refused' | 'operator';

/** One way a call reaches the host, with what every policy's cell needs of it. */
export interface Surface {
  readonly id: string;
  readonly transport: McpTransportKind;
  /** The protocol revision its client speaks (`-`: no MCP client: in-process, CLI). */
  readonly era: '2025-11-25' | '2026-07-28' | '-';
  readonly mode: 'stateful' | 'stateless' | '-';
  readonly platform: 'express' | 'fastify' | '-';
  /**
   * What it reaches: a provider's tool, a REST route of the app, an operation of another API,
   * another server's tool, a tool through `call_tool`, a tool as an MCP Apps view calls it (its
   * client renders views: app-only tools are its too), a REST route of the app as a plain HTTP
   * client calls it (no MCP at all), or — no call at all — the host itself, as an administrator
   * changes it through the admin API.
   */
  readonly reaches: 'tool' | 'rest-route' | 'rest-api' | 'upstream' | 'call_tool' | 'view' | 'http-route' | 'admin';
  /** The trail its calls are recorded in (the host that admitted them), and where they went on to. */
  readonly trail: string;
  readonly onwardTrail?: string;
  /** `clientInfo.name` in its records (`null`: its requests name no client: a 2025 stateless host keeps no `initialize`). */
  readonly client: string | null;
  /** Who a role calls as on this surface (stdio: the operator who started the process). */
  principal(role: 'caller' | 'reader'): string;
  readonly entries: Entries;
  /** How its callers authenticate (HTTP surfaces): the desks' API keys, or the facade desk's tokens. */
  readonly credential?: MatrixCredential;
  /** The `rest.apis` API it reaches, when it reaches one. */
  readonly restApi?: string;
  /** The composed virtual server whose path it calls (named in its audit records), when it calls one. */
  readonly server?: string;
  /**
   * Who the downstream sees on its calls: the host (`service`: its own key), the caller by a
   * token the facade issued for it (`token-exchange`), or the caller's own account there, which
   * they connected once (`user`: in chromium, through the URL elicitation of their first call).
   */
  readonly downstream?: 'service' | 'token-exchange' | 'user';
  /** The host its calls go on to, when that host's trail records nothing of them (REST calls). */
  readonly downstreamHost?: string;
  readonly withoutCredential: WithoutCredential;
  /** The policies that do not apply, each with why (docs/security.md lists them). */
  readonly notApplicable: Partial<Record<PolicyId, string>>;
  /** Where the surface is no call (the admin API), the cells it holds its policies with. */
  readonly cells?: Partial<Record<PolicyId, (world: MatrixWorld) => Promise<void>>>;
  open(world: MatrixWorld, role: Role): Promise<MatrixSession>;
  /** An open ticket its `confirm` entry may close. */
  ticket(world: MatrixWorld): Promise<string>;
  approvals(world: MatrixWorld, session: MatrixSession): ApprovalDesk;
  /**
   * Where a surface holds no call for a person (the command line asks its terminal), a call of its
   * caller held through another surface, for its approvals to decide.
   */
  holdElsewhere?(world: MatrixWorld, call: Call): Promise<Answer>;
  /** Brings back what `terminate` stopped. */
  recover(world: MatrixWorld): Promise<void>;
}

const DESK_ENTRIES: Entries = {
  read: { name: 'search_customers', args: { query: 'contoso' } },
  throttled: { name: 'get_customer', args: { customerId: 'C-1001' } },
  hidden: {
    name: 'create_ticket',
    args: { customerId: 'C-1002', subject: 'Hidden from readers', description: 'A reader may not open tickets.' },
  },
  confirm: (ticketId) => ({ name: 'close_ticket', args: { ticketId, resolution: 'Resolved by the matrix.' } }),
  slow: { name: 'export_ticket_report', args: {} },
  invalid: {
    call: { name: 'search_tickets', args: { status: 'urgent', colour: 'blue' } },
    named: ['status', 'colour'],
  },
  governed: {
    open: (args) => ({ name: 'create_ticket', args }),
    read: (ticketId) => ({ name: 'get_ticket', args: { ticketId } }),
  },
};

/** The MCP Apps extension a client that renders views declares. */
const RENDERS_VIEWS = { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } };

/**
 * The calls a desk's view makes through its client: the app-only tools of the views (read by the
 * ticket card; the report's counts, which need a scope the reader lacks), and the tools both the
 * model and the views may call.
 */
const VIEW_ENTRIES: Entries = {
  ...DESK_ENTRIES,
  read: { name: 'ticket_customer', args: { ticketId: 'T-2001' } },
  hidden: { name: 'ticket_status_counts', args: {} },
};

/** The desk's REST API as tools (`rest.routes`, or `rest.apis` with a prefix). */
function restEntries(prefix = ''): Entries {
  return {
    read: { name: `${prefix}listCustomers`, args: { query: 'contoso' } },
    throttled: { name: `${prefix}getCustomer`, args: { customerId: 'C-1001' } },
    hidden: {
      name: `${prefix}createTicket`,
      args: { customerId: 'C-1002', subject: 'Hidden from readers', description: 'A reader may not open tickets.' },
    },
    confirm: (ticketId) => ({
      name: `${prefix}closeTicket`,
      args: { ticketId, resolution: 'Resolved by the matrix.' },
    }),
    slow: { name: `${prefix}exportTicketReport`, args: {} },
    invalid: {
      call: { name: `${prefix}listTickets`, args: { status: 'urgent', colour: 'blue' } },
      named: ['status', 'colour'],
    },
    governed: {
      open: (args) => ({ name: `${prefix}createTicket`, args }),
      read: (ticketId) => ({ name: `${prefix}getTicket`, args: { ticketId } }),
    },
  };
}

/** The desk's tools as another server relays them (`deskb__…`). */
function upstreamEntries(prefix: string): Entries {
  const entries = DESK_ENTRIES;
  const named = (call: Call) => ({ ...call, name: `${prefix}${call.name}` });
  return {
    read: named(entries.read),
    throttled: named(entries.throttled),
    hidden: named(entries.hidden),
    confirm: (ticketId) => named(entries.confirm(ticketId)),
    slow: named(entries.slow),
    invalid: { call: named(entries.invalid.call), named: entries.invalid.named },
    governed: {
      open: (args) => named(entries.governed.open(args)),
      read: (ticketId) => named(entries.governed.read(ticketId)),
    },
  };
}

/** A call of `inner` through the tool search's `call_tool`. */
function throughCallTool(entries: Entries): Entries {
  const wrapped = (call: Call): Call => ({ name: 'call_tool', args: { name: call.name, arguments: call.args } });
  return {
    read: wrapped(entries.read),
    throttled: wrapped(entries.throttled),
    hidden: wrapped(entries.hidden),
    confirm: (ticketId) => wrapped(entries.confirm(ticketId)),
    slow: wrapped(entries.slow),
    invalid: { call: wrapped(entries.invalid.call), named: entries.invalid.named },
    governed: {
      open: (args) => wrapped(entries.governed.open(args)),
      read: (ticketId) => wrapped(entries.governed.read(ticketId)),
    },
  };
}

/** How a surface's callers authenticate: the desks' API keys, or the facade desk's own tokens. */
export type MatrixCredential = 'apiKey' | 'facade';

/** The headers of a principal's credential. */
async function headersOf(
  world: MatrixWorld,
  credential: MatrixCredential,
  principal: string,
): Promise<Record<string, string>> {
  return credential === 'facade'
    ? { authorization: `Bearer ${await world.facadeToken(principal)}` }
    : { 'x-api-key': world.keyOf(principal) };
}

/** The API key a role gives (none for `anonymous`, a key no one has for `invalid`). */
function apiKeyOf(world: MatrixWorld, surface: string, role: Role): string | undefined {
  switch (role) {
    case 'anonymous':
      return undefined;
    case 'invalid':
      return 'mk-nobody-0123456789abcdef01234567';
    case 'approver':
      return world.keyOf('approver');
    case 'agent':
      return world.keyOf(principalOf('caller', surface));
    default:
      return world.keyOf(principalOf(role, surface));
  }
}

/** The credential headers a role sends (none for `anonymous`, one no one has for `invalid`). */
async function credentialOf(
  world: MatrixWorld,
  surface: string,
  role: Role,
  credential: MatrixCredential = 'apiKey',
): Promise<Record<string, string>> {
  switch (role) {
    case 'anonymous':
      return {};
    case 'invalid':
      return credential === 'facade'
        ? { authorization: 'Bearer eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJub2JvZHkifQ.bm90LXNpZ25lZA' }
        : { 'x-api-key': 'mk-nobody-0123456789abcdef01234567' };
    case 'approver':
      return headersOf(world, credential, 'approver');
    case 'agent':
      return headersOf(world, credential, principalOf('caller', surface));
    default:
      return headersOf(world, credential, principalOf(role, surface));
  }
}

/** A session of the SDK v1 client (2025-11-25) or the v2 client pinned to 2026-07-28 over Streamable HTTP. */
async function httpSession(
  url: string,
  era: '2025-11-25' | '2026-07-28',
  client: string,
  headers: Record<string, string>,
  terminate: () => Promise<void>,
  extensions?: Record<string, object>,
  openLink?: (url: string) => Promise<'accept'>,
): Promise<MatrixSession> {
  const capabilities = {
    ...(extensions && { extensions }),
    // A client that opens the links URL-mode elicitations give (SDK v1 here).
    ...(openLink && { elicitation: { url: {} } }),
  } as Record<string, never>;
  let sdk: Client | ClientV2;
  try {
    if (era === '2025-11-25') {
      sdk = new Client({ name: client, version: '1.0.0' }, { capabilities });
      if (openLink)
        sdk.setRequestHandler(ElicitRequestSchema, async (request) => ({
          action: await openLink((request.params as { url: string }).url),
        }));
      await sdk.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    } else {
      sdk = new ClientV2(
        { name: client, version: '1.0.0' },
        { capabilities, versionNegotiation: { mode: { pin: era } } },
      );
      await sdk.connect(new TransportV2(new URL(url), { requestInit: { headers } }));
    }
  } catch (error) {
    // Refused before any session existed: every call answers so.
    const refusal = thrownAnswer(error);
    return {
      list: async () => refusal,
      call: async () => refusal,
      terminate,
      close: async () => undefined,
    };
  }
  const opened = sdk;
  return {
    list: async () => {
      try {
        return (await opened.listTools()).tools.map((tool) => tool.name);
      } catch (error) {
        return thrownAnswer(error);
      }
    },
    call: ({ name, args }, options) =>
      answerOf(
        () =>
          opened instanceof Client
            ? opened.callTool({ name, arguments: args }, undefined, { signal: options?.signal, timeout: 60_000 })
            : opened.callTool({ name, arguments: args }, { signal: options?.signal, timeout: 60_000 }),
        options?.signal,
      ),
    terminate,
    close: () => opened.close().catch(() => undefined),
  };
}

/** The admin API's approvals of a host (`/admin/api/approvals`), as an approver or the caller sees them. */
function adminApprovals(
  world: MatrixWorld,
  base: () => string,
  surface: string,
  credential: MatrixCredential = 'apiKey',
): ApprovalDesk {
  const request = async (path: string, principal: string, body?: unknown) => {
    const response = await fetch(`${base()}/admin/api/approvals${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        ...(await headersOf(world, credential, principal)),
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  return {
    pending: async (principal, tool) => {
      const { body } = await request('?status=pending', 'approver');
      const approvals = (body.approvals as { id: string; principal: string; tool: string }[]) ?? [];
      return approvals.find((approval) => approval.principal === principal && approval.tool === tool)?.id;
    },
    decide: async (id, as) => {
      const principal = as === 'approver' ? 'approver' : principalOf('caller', surface);
      const { status, body } = await request(`/${id}/approve`, principal, { reason: `decided by the ${as}` });
      return { status, message: String(body.message ?? body.error ?? '') };
    },
  };
}

/**
 * The caller of a `user` surface has connected their account at the API once: their first call
 * (and the first after the facade restarted: it keeps connections in process) goes through the
 * URL elicitation and the browser before the cell's own calls. It is an operation no cell calls
 * (an update of a ticket no cell closes), so that no cell takes its record for its own.
 */
async function connectedAccount(
  world: MatrixWorld,
  spec: { id: string; host: string; era: '2025-11-25' | '2026-07-28'; credential?: MatrixCredential },
): Promise<void> {
  const principal = principalOf('caller', spec.id);
  await world.connectCrmAccount(principal, async (openLink) => {
    const session = await httpSession(
      `${world.host(spec.host).base}/mcp`,
      spec.era,
      `matrix-${spec.id}-connect`,
      await credentialOf(world, spec.id, 'caller', spec.credential),
      async () => undefined,
      undefined,
      openLink,
    );
    try {
      const answer = await session.call({
        name: 'crm_api_updateTicket',
        args: { ticketId: 'T-2001', status: 'pending' },
      });
      if (answer.kind !== 'result' || answer.isError)
        throw new Error(`${principal}'s first call through the CRM API failed: ${JSON.stringify(answer)}`);
    } finally {
      await session.close();
    }
  });
}
/** A surface on one of the matrix's HTTP hosts. */
function hostSurface(spec: {
  id: string;
  host: string;
  era: '2025-11-25' | '2026-07-28';
  mode: 'stateful' | 'stateless';
  platform: 'express' | 'fastify';
  reaches: Surface['reaches'];
  entries: Entries;
  /** The host the call goes on to (where its tickets live). */
  onward?: string;
  /** A seeded open ticket of its host (or onward host) that no other surface closes. */
  ticket: string;
  /**
   * Where its calls wait for an approver, and for whom: the onward host, for the gateway's own
   * principal, when the upstream confirms its own tools (`confirm: 'none'` at the gateway).
   */
  approvalsAt?: { host: string; principal: string; prefix: string };
  /** Its client renders MCP Apps views (declares the extension). */
  views?: boolean;
  notApplicable?: Surface['notApplicable'];
  /** How its callers authenticate. @default 'apiKey' */
  credential?: MatrixCredential;
  /** The `rest.apis` API it reaches (`rest-api`). */
  restApi?: string;
  /** How its calls authenticate where they go on to. @default 'service' */
  downstream?: Surface['downstream'];
  /** The host its calls go on to, when its trail records nothing of them. */
  downstreamHost?: string;
  /** A composed virtual server of the host it calls, at its own path. @default the host's MCP path */
  composed?: { name: string; path: string };
}): Surface {
  return {
    id: spec.id,
    transport: 'http',
    era: spec.era,
    mode: spec.mode,
    platform: spec.platform,
    reaches: spec.reaches,
    trail: spec.host,
    ...(spec.onward && { onwardTrail: spec.onward }),
    client: spec.mode === 'stateless' ? null : `matrix-${spec.id}`,
    principal: (role) => principalOf(role, spec.id),
    entries: spec.entries,
    credential: spec.credential ?? 'apiKey',
    ...(spec.restApi && { restApi: spec.restApi }),
    downstream: spec.downstream ?? 'service',
    ...(spec.downstreamHost && { downstreamHost: spec.downstreamHost }),
    ...(spec.composed && { server: spec.composed.name }),
    withoutCredential: 'refused',
    notApplicable: spec.notApplicable ?? {},
    open: async (world, role) => {
      const host = world.host(spec.host);
      // The API is for writers (`tickets:write`): a reader reaches none of its operations.
      if (spec.downstream === 'user' && (role === 'caller' || role === 'agent')) await connectedAccount(world, spec);
      return httpSession(
        `${host.base}${spec.composed?.path ?? '/mcp'}`,
        spec.era,
        `matrix-${spec.id}`,
        await credentialOf(world, spec.id, role, spec.credential),
        () => host.process.stop(),
        spec.views ? RENDERS_VIEWS : undefined,
      );
    },
    ticket: async () => spec.ticket,
    approvals: (world) => {
      const desk = adminApprovals(
        world,
        () => world.host(spec.approvalsAt?.host ?? spec.host).base,
        spec.id,
        spec.credential,
      );
      const held = spec.approvalsAt?.principal;
      const prefix = spec.approvalsAt?.prefix ?? '';
      return held ? { ...desk, pending: (_principal, tool) => desk.pending(held, tool.slice(prefix.length)) } : desk;
    },
    recover: async (world) => {
      await world.host(spec.host).restart();
    },
  };
}

/** The desk over stdio, started for each session as a desktop client starts it. */
const STDIO: Surface = {
  id: 'stdio',
  transport: 'stdio',
  era: '2025-11-25',
  mode: 'stateful',
  platform: '-',
  reaches: 'tool',
  trail: 'stdio',
  client: 'matrix-stdio',
  principal: () => 'local-operator',
  entries: DESK_ENTRIES,
  withoutCredential: 'operator',
  notApplicable: {
    credential:
      'stdio carries no credential: its caller is the operator who started the process (stdioPrincipal); the operating system decides who may',
  },
  open: async (world, role) => {
    // The reader is the operator whose scopes MCP_STDIO_SCOPES narrows; the agent one without the admin role.
    const scopes: Record<string, string> =
      role === 'reader'
        ? { MCP_STDIO_SCOPES: 'tickets:read,kb:read' }
        : role === 'agent'
          ? { MCP_STDIO_ROLES: '' }
          : {};
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(DIST, 'main.stdio.js')],
      env: { ...(process.env as Record<string, string>), ...world.env('stdio', { LOG_LEVEL: 'log', ...scopes }) },
      stderr: 'pipe',
    });
    let log = '';
    transport.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const client = new Client({ name: 'matrix-stdio', version: '1.0.0' });
    await client.connect(transport);
    const session: MatrixSession & { log(): string } = {
      log: () => log,
      list: async () => (await client.listTools()).tools.map((tool) => tool.name),
      call: ({ name, args }, options) =>
        answerOf(
          () => client.callTool({ name, arguments: args }, undefined, { signal: options?.signal, timeout: 60_000 }),
          options?.signal,
        ),
      terminate: async () => void process.kill(transport.pid!, 'SIGTERM'),
      // The next stdio desk goes on with this one's trail: it must have let go of it first.
      close: async () => {
        const pid = transport.pid;
        await client.close().catch(() => undefined);
        if (pid !== null) await exitOf(pid);
      },
    };
    return session;
  },
  ticket: async () => 'T-2001',
  approvals: (world, session) => {
    // The stdio host's own loopback approval page (its address is on its stderr).
    const base = () => {
      const url = /Approval page for stdio calls at (http:\/\/127\.0\.0\.1:\d+)\//.exec(
        (session as MatrixSession & { log(): string }).log(),
      )?.[1];
      if (!url) throw new Error('the stdio desk did not say where its approval page is');
      return url;
    };
    return adminApprovals(world, base, 'stdio');
  },
  recover: async () => undefined,
};

/** The desk's own application in this process, its tools called through `McpInvoker`. */
class InProcessDesk {
  private app: INestApplicationContext | undefined;

  async get(world: MatrixWorld): Promise<INestApplicationContext> {
    if (this.app) return this.app;
    const saved = { ...process.env };
    Object.assign(process.env, world.sharedEnv('in-process'));
    try {
      this.app = await NestFactory.createApplicationContext(AppModule.register({ transport: 'cli' }), {
        logger: false,
      });
    } finally {
      process.env = saved;
    }
    return this.app;
  }

  async close(): Promise<void> {
    const app = this.app;
    this.app = undefined;
    await app?.close();
  }
}

export const inProcessDesk = new InProcessDesk();

const IN_PROCESS: Surface = {
  id: 'in-process',
  transport: 'in-process',
  era: '-',
  mode: '-',
  platform: '-',
  reaches: 'tool',
  trail: 'in-process',
  client: 'matrix-in-process',
  principal: (role) => principalOf(role, 'in-process'),
  entries: DESK_ENTRIES,
  withoutCredential: 'operator',
  notApplicable: {},
  open: async (world, role) => {
    const app = await inProcessDesk.get(world);
    const invoker = app.get(McpInvoker);
    const credential = apiKeyOf(world, 'in-process', role);
    const options = { credential, clientInfo: { name: 'matrix-in-process', version: '1.0.0' } };
    return {
      list: async () => {
        try {
          return (await invoker.listTools(options)).map((tool) => tool.name);
        } catch (error) {
          return invocationAnswer(error);
        }
      },
      call: async ({ name, args }, call) => {
        try {
          return resultAnswer(await invoker.callTool(name, args, { ...options, signal: call?.signal }));
        } catch (error) {
          return invocationAnswer(error);
        }
      },
      terminate: () => inProcessDesk.close(),
      close: async () => undefined,
    };
  },
  ticket: async () => 'T-2001',
  approvals: (world) => ({
    pending: async (principal, tool) => {
      const approvals = (await inProcessDesk.get(world)).get(McpApprovals);
      const { approvals: list } = await approvals.list(APPROVER, 'pending');
      return list.find((approval) => approval.principal === principal && approval.tool === tool)?.id;
    },
    decide: async (id, as, principal) => {
      const approvals = (await inProcessDesk.get(world)).get(McpApprovals);
      const who: McpPrincipal = as === 'approver' ? APPROVER : { id: principal, scopes: [], roles: [], claims: {} };
      try {
        await approvals.decide(who, id, true, `decided by the ${as}`);
        return { status: 200, message: 'approved' };
      } catch (error) {
        return { status: (error as { status?: number }).status ?? 500, message: (error as Error).message };
      }
    },
  }),
  recover: async () => undefined,
};

/** Waits until process `pid` is gone. */
async function exitOf(pid: number, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    if (Date.now() > deadline) throw new Error(`process ${pid} did not exit`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const APPROVER: McpPrincipal = { id: 'approver', scopes: ['tickets:read'], roles: ['approver'], claims: {} };

/** What `McpInvoker` threw, as an answer. */
function invocationAnswer(error: unknown): Answer {
  if (error instanceof McpInvocationError) {
    if (error.outcome === 'cancelled') return { kind: 'cancelled' };
    if (error.outcome === 'unauthenticated') return { kind: 'refused', status: 401, message: error.message };
    return { kind: 'error', code: error.code, message: error.message, data: error.data };
  }
  throw error;
}

/** What each command line process wrote on stderr so far. */
const printedBy = new WeakMap<ChildProcess, string>();

/**
 * Runs the desk's command line (`dist/src/cli.js`) with `argv`, as `key` (none: the local operator),
 * sharing the desk's Redis; an abort is Ctrl-C. `started` is told of each process.
 */
async function CLI_RUNNER(
  world: MatrixWorld,
  key: string | undefined,
  started: (child: ChildProcess) => void = () => undefined,
): Promise<(argv: string[], signal?: AbortSignal) => Promise<Answer>> {
  return (argv, signal) =>
    new Promise<Answer>((resolve) => {
      const child = spawn(process.execPath, [join(DIST, 'cli.js'), ...argv], {
        env: { ...process.env, ...world.sharedEnv('cli'), ...(key === undefined ? {} : { DESK_API_KEY: key }) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      started(child);
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        printedBy.set(child, stderr);
      });
      // Ctrl-C once the call runs (its progress is on stderr): the CLI cancels it as MCP cancellation does.
      signal?.addEventListener(
        'abort',
        () => {
          // Once: a second Ctrl-C ends the CLI at once, without waiting for the call.
          const interrupt = () => {
            if (!/progress /.test(stderr)) return false;
            child.stderr!.off('data', interrupt);
            child.kill('SIGINT');
            return true;
          };
          if (!interrupt()) child.stderr!.on('data', interrupt);
        },
        { once: true },
      );
      child.on('exit', (code, killed) =>
        resolve({ kind: 'exit', code: code ?? (killed === 'SIGINT' ? 130 : 143), stdout, stderr }),
      );
    });
}

/** The desk's command line: each call a process of its own (`desk call <tool> --json … --output json`). */
const CLI: Surface = {
  id: 'cli',
  transport: 'cli',
  era: '-',
  mode: '-',
  platform: '-',
  reaches: 'tool',
  trail: 'cli',
  client: 'desk',
  principal: (role) => principalOf(role, 'cli'),
  entries: DESK_ENTRIES,
  withoutCredential: 'operator',
  notApplicable: {},
  open: async (world, role) => {
    const key = apiKeyOf(world, 'cli', role);
    let running: ChildProcess | undefined;
    const run = await CLI_RUNNER(world, key, (child) => (running = child));
    return {
      list: async () => {
        const answer = await run(['list', '--output', 'json']);
        if (answer.kind !== 'exit' || answer.code !== 0) return answer;
        return ((JSON.parse(answer.stdout) as { tools: { name: string }[] }).tools ?? []).map((tool) => tool.name);
      },
      call: ({ name, args }, options) =>
        run(['call', name, '--json', JSON.stringify(args), '--output', 'json'], options?.signal),
      // SIGTERM once the call runs (its progress is on stderr), as an operator's stop would come.
      terminate: async () => {
        const child = running!;
        const runs = () => /progress /.test(printedBy.get(child) ?? '');
        for (let tries = 0; !runs() && tries < 200; tries++) await new Promise((resolve) => setTimeout(resolve, 25));
        child.kill('SIGTERM');
      },
      close: async () => undefined,
    };
  },
  // Its own process's seeded store, and the desk's (where a call of its caller is held): no other surface closes it there.
  ticket: async () => 'T-2005',
  approvals: (world) => {
    // `desk approvals`, as an approver or the caller, through the Redis the CLI shares with the desk.
    const approvals = async (argv: string[], key: string) => {
      const session = await CLI_RUNNER(world, key);
      return session(['approvals', ...argv, '--output', 'json']);
    };
    return {
      pending: async (principal, tool) => {
        const answer = await approvals(['list'], world.keyOf('approver'));
        if (answer.kind !== 'exit' || answer.code !== 0) throw new Error(JSON.stringify(answer));
        const list = JSON.parse(answer.stdout) as { id: string; principal: string; tool: string }[];
        return list.find((approval) => approval.principal === principal && approval.tool === tool)?.id;
      },
      decide: async (id, as) => {
        const key = as === 'approver' ? world.keyOf('approver') : world.keyOf(principalOf('caller', 'cli'));
        const answer = await approvals(['approve', id, '--reason', `decided by the ${as}`], key);
        const { code, stderr } = answer as { code: number; stderr: string };
        return {
          status: ({ 0: 200, 3: 403, 4: 404 } as Record<number, number>)[code] ?? 500 + code,
          message: stderr.trim(),
        };
      },
    };
  },
  holdElsewhere: async (world, call) => {
    // The same caller's call on the desk over HTTP, by a client that cannot ask its user.
    const session = await httpSession(
      `${world.host('desk').base}/mcp`,
      '2025-11-25',
      'matrix-cli-elsewhere',
      { 'x-api-key': world.keyOf(principalOf('caller', 'cli')) },
      async () => undefined,
    );
    try {
      return await session.call(call);
    } finally {
      await session.close();
    }
  },
  recover: async () => undefined,
};

/** How a plain HTTP client calls each operation of the desk's REST API the matrix's cells use. */
const ROUTES: Record<string, (args: Record<string, unknown>) => { method: string; path: string; body?: unknown }> = {
  listCustomers: (args) => ({ method: 'GET', path: `/api/customers?${new URLSearchParams(args as never)}` }),
  getCustomer: ({ customerId }) => ({ method: 'GET', path: `/api/customers/${String(customerId)}` }),
  listTickets: (args) => ({ method: 'GET', path: `/api/tickets?${new URLSearchParams(args as never)}` }),
  getTicket: ({ ticketId }) => ({ method: 'GET', path: `/api/tickets/${String(ticketId)}` }),
  createTicket: (args) => ({ method: 'POST', path: '/api/tickets', body: args }),
  closeTicket: ({ ticketId, ...body }) => ({ method: 'POST', path: `/api/tickets/${String(ticketId)}/close`, body }),
  exportTicketReport: (args) => ({ method: 'GET', path: `/api/reports/tickets?${new URLSearchParams(args as never)}` }),
};

/**
 * The desk's REST API called as any HTTP client calls it — no MCP client, no bridge: `fetch` with
 * the matrix's API keys, against the routes under `/api` (src/support/rest), where the desk's
 * authentication (`DeskApiGuard`) and governance (`McpGovernanceGuard`, `McpGovernanceInterceptor`)
 * decide. A refusal before the route (401) is `refused`; every other answer is `http`.
 */
const PLAIN_REST: Surface = {
  id: 'http-route',
  transport: 'http',
  era: '-',
  mode: '-',
  platform: 'express',
  reaches: 'http-route',
  trail: 'desk',
  client: null,
  principal: (role) => principalOf(role, 'http-route'),
  entries: restEntries(),
  withoutCredential: 'refused',
  notApplicable: {
    hidden:
      "an HTTP API's routes are listed in its OpenAPI document for anyone who asks (/docs-json): a route the key may not use answers 403 naming the scope it lacks (DeskApiGuard), before anything runs — nothing is hidden",
    approval:
      "the REST API holds nothing for a person: HTTP has no way to ask one, and its callers are applications acting for someone, whose own screens ask; what an agent holding a key could do there is an open threat of the REST bridge's section",
    throttling:
      "a route is throttled per client address (@nestjs/throttler's own tracker), not per principal: the matrix's callers share one loopback address with the REST bridge's calls of the same routes, so a cell could not count its own calls",
    cancellation:
      'a plain HTTP request is no MCP call: the client that goes away stops the report (its route listens for the abandoned request), and nothing records a route request that governance had nothing to say about',
    audit:
      "the trail records a plain HTTP request only when governance refused it or a guardrail found something (the governance cell checks those records); the rest is the HTTP server's access log",
    shutdown:
      "no MCP call runs: the drain and its answer that the host is shutting down are for MCP calls; an HTTP request in flight at SIGTERM is the HTTP server's to end",
  },
  open: async (world, role) => {
    const base = world.host('desk').base;
    const headers = await credentialOf(world, 'http-route', role);
    return {
      list: async () => {
        const document = (await (await fetch(`${base}/docs-json`)).json()) as {
          paths: Record<string, Record<string, { operationId?: string }>>;
        };
        return Object.values(document.paths).flatMap((item) => Object.values(item).map((op) => op.operationId ?? ''));
      },
      call: async ({ name, args }, options) => {
        const route = ROUTES[name];
        if (!route) throw new Error(`the matrix calls no route for ${name}`);
        const { method, path, body } = route(args);
        try {
          const response = await fetch(`${base}${path}`, {
            method,
            headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
            ...(body !== undefined && { body: JSON.stringify(body) }),
            signal: options?.signal,
          });
          const answered = (await response.json()) as Record<string, unknown>;
          if (response.status === 401) return { kind: 'refused', status: 401, message: String(answered.message ?? '') };
          return { kind: 'http', status: response.status, body: answered };
        } catch (error) {
          if (options?.signal?.aborted) return { kind: 'cancelled' };
          throw error;
        }
      },
      terminate: async () => undefined,
      close: async () => undefined,
    };
  },
  ticket: async () => 'T-2003',
  approvals: () => {
    throw new Error('the REST API holds no call for approval');
  },
  recover: async () => undefined,
};

/** A surface of no call: its cells are its own. */
const noCalls = (): never => {
  throw new Error('the admin API surface holds its policies with cells of its own');
};

/**
 * The desk's admin API, where an administrator acts on the host instead of calling a tool (adds
 * and removes a composed virtual server, switches a prompt off and on): the credential, the
 * arguments and the audit hold as for a call (`ADMIN_CELLS`); the other policies are about calls.
 */
const ADMIN_API: Surface = {
  id: ADMIN_SURFACE,
  transport: 'http',
  era: '-',
  mode: '-',
  platform: 'express',
  reaches: 'admin',
  trail: 'desk',
  client: null,
  principal: (role) => principalOf(role, ADMIN_SURFACE),
  entries: DESK_ENTRIES,
  withoutCredential: 'refused',
  cells: ADMIN_CELLS,
  notApplicable: {
    hidden:
      'the admin API has no catalog to hide: a principal who is no administrator is refused every route (its credential cell)',
    approval:
      "an administrator's write is a person's decision made with their own credential, not a call held for one (approval decisions are themselves admin API writes, recorded)",
    throttling:
      'the admin API is not limited per principal; failed authentications are, per address, across the MCP endpoint and the admin API (authFailureLimit)',
    governance:
      "governance's policies and guardrails decide on calls of catalog entries; replacing them is itself an administrator's write, recorded",
    cancellation: 'an admin API request is one short exchange that runs no tool: there is no call to cancel',
    shutdown: 'an admin API request runs no tool: there is no call in flight for the drain to answer',
  },
  open: noCalls,
  ticket: noCalls,
  approvals: noCalls,
  recover: async () => undefined,
};

/**
 * Every surface of the matrix: each transport and era, both HTTP platforms, each way a call
 * reaches something else than a provider's tool (a REST route, another REST API, another MCP
 * server, the tool search's `call_tool`, an MCP Apps view — on both platforms), the app's REST
 * routes called as a plain HTTP client calls them, and the admin API.
 */
export const SURFACES: readonly Surface[] = [
  hostSurface({
    id: 'http-2025-stateful',
    ticket: 'T-2001',
    host: 'desk',
    era: '2025-11-25',
    mode: 'stateful',
    platform: 'express',
    reaches: 'tool',
    entries: DESK_ENTRIES,
  }),
  hostSurface({
    id: 'http-2025-stateless',
    ticket: 'T-2001',
    host: 'stateless',
    era: '2025-11-25',
    mode: 'stateless',
    platform: 'express',
    reaches: 'tool',
    entries: DESK_ENTRIES,
  }),
  hostSurface({
    id: 'http-2026',
    ticket: 'T-2002',
    host: 'desk',
    era: '2026-07-28',
    mode: 'stateful',
    platform: 'express',
    reaches: 'tool',
    entries: DESK_ENTRIES,
  }),
  hostSurface({
    id: 'fastify-2025',
    ticket: 'T-2001',
    host: 'fastify',
    era: '2025-11-25',
    mode: 'stateful',
    platform: 'fastify',
    reaches: 'tool',
    entries: DESK_ENTRIES,
  }),
  hostSurface({
    id: 'fastify-2026',
    ticket: 'T-2002',
    host: 'fastify',
    era: '2026-07-28',
    mode: 'stateful',
    platform: 'fastify',
    reaches: 'tool',
    entries: DESK_ENTRIES,
  }),
  STDIO,
  IN_PROCESS,
  CLI,
  hostSurface({
    id: 'rest-route',
    ticket: 'T-2003',
    host: 'desk',
    era: '2025-11-25',
    mode: 'stateful',
    platform: 'express',
    reaches: 'rest-route',
    entries: restEntries(),
  }),
  hostSurface({
    id: 'fastify-rest-route',
    ticket: 'T-2003',
    host: 'fastify',
    era: '2025-11-25',
    mode: 'stateful',
    platform: 'fastify',
    reaches: 'rest-route',
    entries: restEntries(),
  }),
  PLAIN_REST,
  hostSurface({
    id: 'rest-api',
    ticket: 'T-2001',
    host: 'desk',
    era: '2025-11-25',
    mode: 'stateful',
    platform: 'express',
    reaches: 'rest-api',
    entries: restEntries('deskb_api_'),
    onward: 'upstream',
    restApi: 'deskb_api',
  }),
  hostSurface({
    id: 'http-facade',
    ticket: 'T-2001',
    host: 'facade',
    era: '2025-11-25',
    mode: 'stateful',
    platform: 'express',
    reaches: 'tool',
    entries: DESK_ENTRIES,
    credential: 'facade',
  }),
  hostSurface({
    id: 'rest-api-exchange',
    ticket: 'T-2002',
    host: 'facade',
    era: '2026-07-28',
    mode: 'stateful',
    platform: 'express',
    reaches: 'rest-api',
    entries: restEntries('upstreamx_api_'),
    // Its requests are REST calls there, which that desk's trail does not record (no onward trail).
    downstreamHost: 'upstreamx',
    credential: 'facade',
    restApi: 'upstreamx_api',
    downstream: 'token-exchange',
  }),
  hostSurface({
    id: 'rest-api-user',
    ticket: 'T-2003',
    host: 'facade',
    era: '2025-11-25',
    mode: 'stateful',
    platform: 'express',
    reaches: 'rest-api',
    entries: restEntries('crm_api_'),
    // The CRM desk's trail does not record REST calls either (no onward trail).
    downstreamHost: 'crm',
    credential: 'facade',
    restApi: 'crm_api',
    downstream: 'user',
  }),
  hostSurface({
    id: 'gateway',
    ticket: 'T-2002',
    host: 'desk',
    era: '2025-11-25',
    mode: 'stateful',
    platform: 'express',
    reaches: 'upstream',
    entries: upstreamEntries('deskb__'),
    onward: 'upstream',
    approvalsAt: { host: 'upstream', principal: 'gateway', prefix: 'deskb__' },
  }),
  hostSurface({
    id: 'virtual-server',
    ticket: 'T-2005',
    host: 'desk',
    era: '2025-11-25',
    mode: 'stateful',
    platform: 'express',
    reaches: 'upstream',
    entries: upstreamEntries('deskv__'),
    onward: 'upstream',
    approvalsAt: { host: 'upstream', principal: 'gateway', prefix: 'deskv__' },
    composed: { name: 'deskv', path: '/mcp/deskv' },
  }),
  hostSurface({
    id: 'fastify-virtual-server',
    ticket: 'T-2005',
    host: 'fastify',
    era: '2026-07-28',
    mode: 'stateful',
    platform: 'fastify',
    reaches: 'tool',
    entries: DESK_ENTRIES,
    composed: { name: 'desk-local', path: '/mcp/local' },
  }),
  hostSurface({
    id: 'call-tool',
    ticket: 'T-2002',
    host: 'stateless',
    era: '2025-11-25',
    mode: 'stateless',
    platform: 'express',
    reaches: 'call_tool',
    entries: throughCallTool(DESK_ENTRIES),
  }),
  hostSurface({
    id: 'view',
    ticket: 'T-2006',
    host: 'desk',
    era: '2026-07-28',
    mode: 'stateful',
    platform: 'express',
    reaches: 'view',
    entries: VIEW_ENTRIES,
    views: true,
  }),
  hostSurface({
    id: 'fastify-view',
    ticket: 'T-2006',
    host: 'fastify',
    era: '2026-07-28',
    mode: 'stateful',
    platform: 'fastify',
    reaches: 'view',
    entries: VIEW_ENTRIES,
    views: true,
  }),
  ADMIN_API,
];
