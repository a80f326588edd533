import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ElicitRequestSchema,
  ElicitationCompleteNotificationSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { Browser } from 'playwright-core';
import { launchChromium } from './support/chromium';
import { DESK_KEYS, startDeskHost, type DeskHost } from './support/desk-host';
import { startRedisServer, type RedisServer } from './support/redis-server';
import { waitFor } from './support/wait-for';

// Each test spawns the desk (and the CLI) as processes of their own.
jest.setTimeout(60_000);

const DIST = join(__dirname, '..', 'dist', 'src');
/** Keys are checked (the demo keys of config/api-keys.example.json); the stdio caller is the local operator. */
const DESK_ENV = { AUTH_MODE: 'apiKey', AUDIT_SINK: 'off', LOG_LEVEL: 'log' };
const PAGE_LINK = /^http:\/\/127\.0\.0\.1:\d+\/admin#approval=[A-Za-z0-9_-]{24}$/;

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

/** The support desk over stdio, as `npm run start:stdio` runs it, and an SDK client on its stdin/stdout. */
async function startStdioDesk(
  capabilities: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<{ client: Client; log: () => string; close: () => Promise<void> }> {
  const main = join(DIST, 'main.stdio.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: run \`npm run build\` first`);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [main],
    env: { PATH: process.env.PATH ?? '', ...DESK_ENV, ...env },
    stderr: 'pipe',
  });
  let log = '';
  transport.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const client = new Client({ name: 'stdio-agent', version: '1.0.0' }, { capabilities });
  await client.connect(transport);
  return { client, log: () => log, close: () => client.close() };
}

async function openTicket(client: Client, subject: string): Promise<string> {
  const created = await client.callTool({
    name: 'create_ticket',
    arguments: { customerId: 'C-1001', subject, description: 'Printer in room 4 jams', priority: 'low' },
  });
  return (created.structuredContent as { id: string }).id;
}

const closeTicket = (client: Client, ticketId: string) =>
  client.callTool({ name: 'close_ticket', arguments: { ticketId, resolution: 'Cleared the tray.' } });

/** The approvals API of a page or an HTTP host (`base` is its admin path), with a key. */
function approvalsApi(base: string, key?: string) {
  const headers = (json: boolean) => ({
    ...(key && { 'x-api-key': key }),
    ...(json && { 'content-type': 'application/json' }),
  });
  return {
    get: (path: string) => fetch(`${base}/api/approvals${path}`, { headers: headers(false) }),
    decide: (id: string, decision: 'approve' | 'deny', reason = 'checked with the customer') =>
      fetch(`${base}/api/approvals/${id}/${decision}`, {
        method: 'POST',
        headers: headers(true),
        body: JSON.stringify({ reason }),
      }),
  };
}

/** Runs the desk's CLI (`npm run -s desk`) with `args`; resolves when it exits. */
function deskCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(DIST, 'cli.js'), ...args], {
      env: { PATH: process.env.PATH, ...DESK_ENV, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

describe('the support desk over stdio, with a client that supports URL-mode elicitation', () => {
  let desk: Awaited<ReturnType<typeof startStdioDesk>>;
  /** What the client's user does with each link it is sent. */
  let onLink: (link: string) => Promise<void>;
  const decisions: Promise<void>[] = [];
  const completed: string[] = [];

  beforeAll(async () => {
    desk = await startStdioDesk({ elicitation: { url: {} } });
    desk.client.setNotificationHandler(
      ElicitationCompleteNotificationSchema,
      (notification) => void completed.push(notification.params.elicitationId),
    );
    desk.client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const params = request.params as { mode: string; url: string };
      expect(params.mode).toBe('url');
      // The user opens the link and says so at once; the person decides a moment later.
      decisions.push(onLink(params.url));
      return { action: 'accept' };
    });
  });
  afterAll(() => desk?.close());

  it('logs where its loopback approval page is, for an operator at the machine', () => {
    expect(desk.log()).toMatch(/Approval page for stdio calls at http:\/\/127\.0\.0\.1:\d+\/admin \(approvers sign in/);
  });

  it('sends the client a 127.0.0.1 link; only an approver decides there, and the waiting call runs', async () => {
    const ticketId = await openTicket(desk.client, 'Jam on floor 2');
    let link = '';
    onLink = async (sent) => {
      link = sent;
      const base = sent.slice(0, sent.indexOf('#'));
      const id = sent.slice(sent.indexOf('#approval=') + '#approval='.length);
      const page = await fetch(sent);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(await page.text()).toContain('<script src="/admin/app.js"');
      // No key: not signed in. A key of someone who is no approver: nothing to see.
      expect((await approvalsApi(base).decide(id, 'approve')).status).toBe(401);
      expect((await approvalsApi(base, DESK_KEYS.reader).decide(id, 'approve')).status).toBe(404);
      const shown = await approvalsApi(base, DESK_KEYS.approver).get(`/${id}`);
      expect(await shown.json()).toMatchObject({
        approval: { tool: 'close_ticket', principal: 'local-operator', transport: 'stdio', channel: 'url' },
        approver: true,
        mayDecide: true,
      });
      const approved = await approvalsApi(base, DESK_KEYS.approver).decide(id, 'approve');
      expect(approved.status).toBe(200);
      expect(await approved.json()).toMatchObject({ approval: { status: 'approved', decidedBy: 'desk-approver' } });
    };
    const closed = await closeTicket(desk.client, ticketId);
    await Promise.all(decisions.splice(0));
    expect(link).toMatch(PAGE_LINK);
    expect(closed.structuredContent).toEqual({ id: ticketId, status: 'closed', alreadyClosed: false });
    await waitFor(() => completed.includes(link.slice(link.indexOf('#approval=') + '#approval='.length)));
  });

  it('serves the dashboard page there: an approver signs in in chromium and denies the call', async () => {
    const browser: Browser = await launchChromium();
    try {
      const ticketId = await openTicket(desk.client, 'Jam on floor 3');
      onLink = async (sent) => {
        const page = await browser.newPage();
        await page.goto(sent);
        await page.waitForSelector('html[data-state="unauthorized"]');
        await page.fill('#key', DESK_KEYS.approver);
        await page.click('#key-form button[type="submit"]');
        await page.waitForSelector('html[data-mode="approval"][data-state="ok"]');
        const row = '#approval-rows tr[data-status="pending"]';
        expect(await page.textContent(`${row} td:nth-child(3)`)).toBe('close_ticket');
        await page.fill(`${row} input[data-reason]`, 'the customer still sees the jam');
        await page.click(`${row} button[data-decide="deny"]`);
        await page.waitForSelector('#approval-rows tr[data-status="denied"]');
      };
      const denied = await closeTicket(desk.client, ticketId);
      await Promise.all(decisions.splice(0));
      expect(textOf(denied)).toBe(
        '"close_ticket" was denied by desk-approver: the customer still sees the jam. It was not run; do not retry unless the user asks for it.',
      );
    } finally {
      await browser.close();
    }
  });
});

/**
 * A client without forms or URL mode (the call can only wait for an approver): the stdio desk
 * shares its approval requests through Redis (REDIS_URL), so the desk's CLI or an HTTP replica's
 * admin API decides them.
 */
describe('the support desk over stdio and a client without elicitation, sharing approvals through Redis', () => {
  let redis: RedisServer;
  let desk: Awaited<ReturnType<typeof startStdioDesk>>;
  let http: DeskHost;
  let env: Record<string, string>;

  beforeAll(async () => {
    redis = await startRedisServer();
    env = { REDIS_URL: redis.url };
    desk = await startStdioDesk({}, env);
    http = await startDeskHost({ ...env, AUTH_MODE: 'apiKey' });
  });
  afterAll(async () => {
    await desk?.close();
    await http?.close();
    await redis?.stop();
  });

  async function heldCall(subject: string): Promise<string> {
    const ticketId = await openTicket(desk.client, subject);
    const held = await closeTicket(desk.client, ticketId);
    expect(held.isError).toBe(true);
    expect(textOf(held)).toMatch(
      /^"close_ticket" needs a person's approval before it runs, and it was not run\. An approval request is waiting for an approver\./,
    );
    return ticketId;
  }

  it('is decided with the CLI by an approver, never as the local operator whose call waits', async () => {
    const ticketId = await heldCall('Jam on floor 4');
    const listed = await deskCli(['approvals', '--output', 'json', '--api-key', DESK_KEYS.approver], env);
    expect(listed).toMatchObject({ code: 0, err: '' });
    const request = (JSON.parse(listed.out) as { id: string; arguments: { ticketId: string } }[]).find(
      (approval) => approval.arguments.ticketId === ticketId,
    )!;
    expect(request).toMatchObject({ tool: 'close_ticket', principal: 'local-operator', transport: 'stdio' });
    const text = await deskCli(['approvals', '--api-key', DESK_KEYS.approver], env);
    expect(text.out).toContain(`${request.id}  pending  close_ticket  by local-operator (stdio)  expires `);

    // Without a key the CLI acts as the configured operator: the very principal whose call waits.
    const self = await deskCli(['approvals', 'approve', request.id], env);
    expect(self).toEqual({
      code: 3,
      out: '',
      err: 'Refused: "local-operator" may not decide a request of its own: another approver must (approvals.allowSelfApproval is off).\n',
    });
    const approved = await deskCli(
      ['approvals', 'approve', request.id, '--reason', 'the customer agreed', '--api-key', DESK_KEYS.approver],
      env,
    );
    expect(approved).toEqual({
      code: 0,
      out: `Approved ${request.id}: "close_ticket" of local-operator (the customer agreed). Its retry with the same arguments runs, once.\n`,
      err: '',
    });
    expect((await closeTicket(desk.client, ticketId)).structuredContent).toEqual({
      id: ticketId,
      status: 'closed',
      alreadyClosed: false,
    });
    expect((await deskCli(['approvals', 'deny', request.id, '--api-key', DESK_KEYS.approver], env)).code).toBe(1);
  });

  it('is decided on an HTTP replica by an approver through the admin API', async () => {
    const ticketId = await heldCall('Jam on floor 5');
    const api = approvalsApi(`${http.base}/admin`, DESK_KEYS.approver);
    const { approvals } = (await (await api.get('?status=pending')).json()) as {
      approvals: { id: string; transport: string; arguments: { ticketId: string } }[];
    };
    const request = approvals.find((approval) => approval.arguments.ticketId === ticketId)!;
    expect(request.transport).toBe('stdio');
    expect((await api.decide(request.id, 'approve')).status).toBe(200);
    expect((await closeTicket(desk.client, ticketId)).structuredContent).toEqual({
      id: ticketId,
      status: 'closed',
      alreadyClosed: false,
    });
  });
});
