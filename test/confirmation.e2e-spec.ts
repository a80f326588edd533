import { createHmac } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import {
  ElicitRequestSchema,
  ElicitationCompleteNotificationSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { McpApprovals } from '#libs/operations';
import { hashApiKey, type AuditRecord } from '#libs/security';
import { ContentFixtures } from './fixtures/fixture.content';
import { connect, type TransportName } from './support/connect';
import { connectHttpClient, PLATFORMS, startFixtureApp } from './support/fixture-app';
import { waitFor, waitForAsync } from './support/wait-for';

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;
const KEYS = {
  agent: 'agent-key-0123456789',
  other: 'other-agent-key-0123',
  ops: 'ops-approver-key-0123',
  boss: 'boss-admin-key-012345',
};
const auth = {
  mode: 'apiKey' as const,
  keys: [
    { hash: hashApiKey(KEYS.agent), principal: 'agent' },
    { hash: hashApiKey(KEYS.other), principal: 'other-agent' },
    { hash: hashApiKey(KEYS.ops), principal: 'ops', roles: ['approver'] },
    { hash: hashApiKey(KEYS.boss), principal: 'boss', roles: ['admin'] },
  ],
};

describe.each<TransportName>(['http', 'stdio'])('confirmation of destructive tools over %s', (transport) => {
  it('asks through elicitation and runs only when the user accepts', async () => {
    const connected = await connect(transport, { capabilities: { elicitation: {} } }, { confirmDestructive: true });
    try {
      const questions: string[] = [];
      let accept = true;
      connected.client.setRequestHandler(ElicitRequestSchema, async (request) => {
        questions.push(request.params.message);
        return accept ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
      });
      expect(await connected.client.callTool({ name: 'deleteArchive', arguments: { archive: 'q1' } })).toEqual({
        content: [{ type: 'text', text: 'deleted q1' }],
      });
      accept = false;
      const declined = (await connected.client.callTool({
        name: 'deleteArchive',
        arguments: { archive: 'q2' },
      })) as CallToolResult;
      expect(declined).toEqual({
        content: [
          {
            type: 'text',
            text: 'The user did not confirm "deleteArchive" (decline); it was not run. Do not retry without asking the user.',
          },
        ],
        isError: true,
      });
      expect(questions).toEqual([
        'Allow "deleteArchive" to run with {"archive":"q1"}?',
        'Allow "deleteArchive" to run with {"archive":"q2"}?',
      ]);
      expect(connected.app.get(ContentFixtures).deleted).toEqual(['q1']);
    } finally {
      await connected.close();
    }
  });

  it('holds the call of a client that cannot ask its user until a person approves it; nothing the model sends approves it', async () => {
    const connected = await connect(
      transport,
      {},
      { confirmDestructive: true, stdioPrincipal: { id: 'desktop-user' } },
    );
    try {
      const { client, app } = connected;
      const first = (await client.callTool({ name: 'deleteArchive', arguments: { archive: 'q3' } })) as CallToolResult;
      expect(first.isError).toBe(true);
      expect(textOf(first)).toMatch(
        /^"deleteArchive" needs a person's approval before it runs, and it was not run\. An approval request is waiting for an approver\./,
      );
      expect(first._meta).toEqual({ 'nest-mcp-host/approval': { status: 'pending', expiresAt: expect.any(String) } });
      const approvals = app.get(McpApprovals);
      const ops = { id: 'ops', scopes: [], roles: ['approver'], claims: {} };
      const [pending] = (await approvals.list(ops, 'pending')).approvals;
      // The approval's id, which a person uses to decide it, is never shown to the model.
      expect(JSON.stringify(first)).not.toContain(pending.id);
      expect(pending).toMatchObject({
        tool: 'deleteArchive',
        arguments: { archive: 'q3' },
        status: 'pending',
        channel: 'approvers',
      });
      // Whatever the model sends along, the call does not run before the decision.
      const pushy = (await client.callTool({
        name: 'deleteArchive',
        arguments: { archive: 'q3' },
        _meta: { approval: pending.id, confirmed: true },
      })) as CallToolResult;
      expect(pushy.isError).toBe(true);
      expect(app.get(ContentFixtures).deleted).toEqual([]);
      await approvals.decide(ops, pending.id, true, 'checked with the owner');
      expect(await client.callTool({ name: 'deleteArchive', arguments: { archive: 'q3' } })).toEqual({
        content: [{ type: 'text', text: 'deleted q3' }],
      });
      // Used up: the next call asks again.
      expect(
        ((await client.callTool({ name: 'deleteArchive', arguments: { archive: 'q3' } })) as CallToolResult).isError,
      ).toBe(true);
      expect(app.get(ContentFixtures).deleted).toEqual(['q3']);
    } finally {
      await connected.close();
    }
  });

  it('runs destructive tools without asking when the policy is off', async () => {
    const connected = await connect(transport);
    try {
      expect(await connected.client.callTool({ name: 'deleteArchive', arguments: { archive: 'q4' } })).toEqual({
        content: [{ type: 'text', text: 'deleted q4' }],
      });
    } finally {
      await connected.close();
    }
  });
});

/**
 * Approvals over HTTP, as real clients meet them: LangChain, the AI SDK and mcp-use cannot elicit
 * nor send `_meta` from a model's tool call, and the Inspector CLI opens a session per command.
 * A request is bound to the principal, the tool and the arguments, never to a session.
 */
describe.each(['stateful', 'stateless'] as const)('approval requests over Streamable HTTP (%s)', (mode) => {
  let app: INestApplication;
  let url: string;
  let base: string;
  let file: string;
  const hooks: { body: Record<string, unknown>; signature: string | undefined }[] = [];
  let hookServer: Server;

  beforeAll(async () => {
    hookServer = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk) => (text += chunk));
      req.on('end', () => {
        hooks.push({
          body: JSON.parse(text) as Record<string, unknown>,
          signature: req.headers['x-mcp-signature'] as string | undefined,
        });
        const ok =
          req.headers['x-mcp-signature'] ===
          `sha256=${createHmac('sha256', 'webhook-secret-0123456789').update(text).digest('hex')}`;
        res.writeHead(ok ? 204 : 401).end();
      });
    });
    await new Promise<void>((resolve) => hookServer.listen(0, '127.0.0.1', resolve));
    file = join(await mkdtemp(join(tmpdir(), 'mcp-approvals-')), 'audit.jsonl');
    ({ app, url } = await startFixtureApp({
      mode,
      auth,
      confirmDestructive: true,
      audit: { file, flushIntervalMs: 10 },
      approvals: {
        webhook: {
          url: `http://127.0.0.1:${(hookServer.address() as { port: number }).port}/hook`,
          secret: 'webhook-secret-0123456789',
        },
      },
    }));
    base = url.replace(/\/mcp$/, '');
  });
  afterAll(async () => {
    await app.close();
    await new Promise((resolve) => hookServer.close(resolve));
  });

  /** A client per call, as the Inspector CLI runs: no session survives from one call to the next. */
  async function callOnce(key: string, archive: string): Promise<CallToolResult> {
    const client = await connectHttpClient(url, { 'x-api-key': key });
    try {
      return (await client.callTool({ name: 'deleteArchive', arguments: { archive } })) as CallToolResult;
    } finally {
      await client.close();
    }
  }
  const api = (key: string, path: string, body?: unknown) =>
    fetch(`${base}/admin/api/approvals${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'x-api-key': key, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const pendingFor = async (archive: string) =>
    (
      (await (await api(KEYS.ops, '?status=pending')).json()) as {
        approvals: { id: string; arguments: { archive: string }; principal: string }[];
      }
    ).approvals.find((approval) => approval.arguments.archive === archive)!;

  it('runs the same call by the same principal once an approver approved it, out of band, and only once', async () => {
    const archive = `a-${mode}`;
    expect((await callOnce(KEYS.agent, archive)).isError).toBe(true);
    const request = await pendingFor(archive);
    expect(request).toMatchObject({
      principal: 'agent',
      status: 'pending',
      channel: 'approvers',
      question: `Allow "deleteArchive" to run with {"archive":"${archive}"}?`,
    });

    // The requester cannot see, list or decide it; it is no approver.
    expect((await api(KEYS.agent, '')).status).toBe(403);
    expect((await api(KEYS.agent, `/${request.id}`)).status).toBe(404);
    expect((await api(KEYS.agent, `/${request.id}/approve`, {})).status).toBe(404);
    // A decision is JSON: a form posted from another site cannot carry one.
    const form = await fetch(`${base}/admin/api/approvals/${request.id}/approve`, {
      method: 'POST',
      headers: { 'x-api-key': KEYS.ops, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'reason=x',
    });
    expect(form.status).toBe(415);

    const approved = await api(KEYS.ops, `/${request.id}/approve`, { reason: 'archive is a copy' });
    expect(approved.status).toBe(200);
    expect(((await approved.json()) as { approval: unknown }).approval).toMatchObject({
      status: 'approved',
      decidedBy: 'ops',
      reason: 'archive is a copy',
    });
    expect((await api(KEYS.ops, `/${request.id}/deny`, {})).status).toBe(409); // decided once

    // Not for another principal, nor for other arguments.
    expect((await callOnce(KEYS.other, archive)).isError).toBe(true);
    expect((await callOnce(KEYS.agent, `${archive}-other`)).isError).toBe(true);
    expect(app.get(ContentFixtures).deleted).not.toContain(archive);
    // The approved call runs, in a new session, and only once.
    expect(await callOnce(KEYS.agent, archive)).toEqual({ content: [{ type: 'text', text: `deleted ${archive}` }] });
    expect((await callOnce(KEYS.agent, archive)).isError).toBe(true);
    expect(app.get(ContentFixtures).deleted.filter((name) => name === archive)).toHaveLength(1);
  });

  it('tells the model who denied it and why', async () => {
    const archive = `d-${mode}`;
    await callOnce(KEYS.agent, archive);
    const request = await pendingFor(archive);
    expect((await api(KEYS.boss, `/${request.id}/deny`, { reason: 'that archive is the only copy' })).status).toBe(200);
    expect(textOf(await callOnce(KEYS.agent, archive))).toBe(
      '"deleteArchive" was denied by boss: that archive is the only copy. It was not run; do not retry unless the user asks for it.',
    );
    expect(app.get(ContentFixtures).deleted).not.toContain(archive);
  });

  it('keeps approvers from deciding their own requests', async () => {
    const archive = `s-${mode}`;
    await callOnce(KEYS.ops, archive);
    const request = await pendingFor(archive);
    const self = await api(KEYS.ops, `/${request.id}/approve`, {});
    expect(self.status).toBe(403);
    expect(((await self.json()) as { message: string }).message).toBe(
      '"ops" may not decide a request of its own: another approver must (approvals.allowSelfApproval is off).',
    );
    expect((await api(KEYS.boss, `/${request.id}/approve`, {})).status).toBe(200);
  });

  it('audits every request, decision and use, and tells the webhook, signed', async () => {
    await waitForAsync(async () => (await readFile(file, 'utf8')).includes('approvals/use'));
    const records = (await readFile(file, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as AuditRecord);
    const approvalRecords = records.filter((record) => record.method?.startsWith('approvals/'));
    expect(approvalRecords.map((record) => [record.method, record.principal])).toEqual(
      expect.arrayContaining([
        ['approvals/request', 'agent'],
        ['approvals/approve', 'ops'],
        ['approvals/use', 'agent'],
        ['approvals/deny', 'boss'],
      ]),
    );
    // The decision (refused attempts to decide carry the method too, with their outcome).
    expect(
      approvalRecords.find((record) => record.method === 'approvals/approve' && record.outcome === 'ok'),
    ).toMatchObject({
      target: 'deleteArchive',
      arguments: { requester: 'agent', reason: 'archive is a copy' },
    });
    await waitFor(() => hooks.some((hook) => hook.body.event === 'approval.used'));
    expect(hooks.map((hook) => hook.body.event)).toEqual(
      expect.arrayContaining(['approval.requested', 'approval.approved', 'approval.denied', 'approval.used']),
    );
    expect(hooks.every((hook) => hook.signature?.startsWith('sha256='))).toBe(true);
  });
});

describe.each(PLATFORMS)('approval through URL-mode elicitation (%s)', (platform) => {
  it('sends the user to the approval page, where an approver other than the caller decides; the waiting call then runs', async () => {
    const { app, url } = await startFixtureApp({ auth, confirmDestructive: true }, undefined, platform);
    const base = url.replace(/\/mcp$/, '');
    const client = await connectHttpClient(
      url,
      { 'x-api-key': KEYS.agent },
      { capabilities: { elicitation: { url: {} } } },
    );
    const completed: string[] = [];
    client.setNotificationHandler(
      ElicitationCompleteNotificationSchema,
      (notification) => void completed.push(notification.params.elicitationId),
    );
    let link = '';
    const decide = (id: string, key: string) =>
      fetch(`${base}/admin/api/approvals/${id}/approve`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: '{}',
      });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const params = request.params as { mode: string; url: string; elicitationId: string };
      expect(params.mode).toBe('url');
      link = params.url;
      // The user opens the page; an approver signs in there, reviews the call and approves it.
      setTimeout(async () => {
        const id = new URL(link).hash.replace('#approval=', '');
        const page = await fetch(link);
        expect(page.status).toBe(200);
        // The user it was sent to may follow it, but not decide it: its key is the calling program's.
        const shown = await fetch(`${base}/admin/api/approvals/${id}`, { headers: { 'x-api-key': KEYS.agent } });
        expect(await shown.json()).toMatchObject({ approval: { tool: 'deleteArchive' }, mayDecide: false });
        const own = await decide(id, KEYS.agent);
        expect(own.status).toBe(403);
        expect(((await own.json()) as { message: string }).message).toBe(
          '"agent" may not decide a request of its own: another approver must (approvals.allowSelfApproval is off).',
        );
        // Another principal who got hold of the link cannot.
        expect((await decide(id, KEYS.other)).status).toBe(404);
        expect((await decide(id, KEYS.ops)).status).toBe(200);
      }, 50);
      return { action: 'accept' };
    });
    try {
      expect(await client.callTool({ name: 'deleteArchive', arguments: { archive: 'by-url' } })).toEqual({
        content: [{ type: 'text', text: 'deleted by-url' }],
      });
      expect(link).toMatch(new RegExp(`^${base}/admin#approval=[A-Za-z0-9_-]{24}$`));
      await waitFor(() => completed.length === 1);
      expect(completed[0]).toBe(new URL(link).hash.replace('#approval=', ''));
      expect(app.get(ContentFixtures).deleted).toEqual(['by-url']);
    } finally {
      await client.close();
      await app.close();
    }
  });
});
