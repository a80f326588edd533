import { mkdtemp } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import request from 'supertest';
import type { McpModuleOptions } from '#libs/hosting';
import { defaultReplicaName } from '#libs/operations';
import { hashApiKey } from '#libs/security';
import { AuditFixtureModule } from './fixtures/audit.fixtures';
import {
  connectHttpClient,
  createTestApplication,
  PLATFORMS,
  startFixtureApp,
  type TestPlatform,
} from './support/fixture-app';

const KEYS = { admin: 'ak_admin_dashboard_1', scoped: 'ak_admin_scope_2', agent: 'ak_agent_3' };
const AUTH = {
  mode: 'apiKey' as const,
  keys: [
    { hash: hashApiKey(KEYS.admin), principal: 'ops', roles: ['admin'] },
    { hash: hashApiKey(KEYS.scoped), principal: 'ops-bot', scopes: ['mcp:admin'] },
    { hash: hashApiKey(KEYS.agent), principal: 'agent-7', scopes: [] },
  ],
};

async function startAudited(
  options: Partial<McpModuleOptions>,
  platform: TestPlatform,
): Promise<{ app: INestApplication; base: string }> {
  const moduleRef = await Test.createTestingModule({ imports: [AuditFixtureModule.register(options)] }).compile();
  const app = createTestApplication(moduleRef, platform);
  await app.listen(0, '127.0.0.1');
  return { app, base: (await app.getUrl()).replace('[::1]', '127.0.0.1') };
}

/**
 * The admin dashboard's HTTP surface: who may read it, the headers it sends, and that its JSON
 * tells what happened (calls, errors, throttling, sessions, audit records) — over the real
 * transport with the SDK client.
 */
describe.each(PLATFORMS)('admin API (%s)', (platform) => {
  let app: INestApplication;
  let base: string;
  let agent: Client;
  const get = (path: string, key?: string) => {
    const req = request(base).get(path);
    return key ? req.set('authorization', `Bearer ${key}`) : req;
  };

  beforeAll(async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'mcp-admin-')), 'audit.jsonl');
    ({ app, base } = await startAudited(
      {
        auth: AUTH,
        audit: { file, flushIntervalMs: 10 },
        admin: { statsWindowMinutes: 10 },
        replica: 'desk-eu-1',
      },
      platform,
    ));
    agent = await connectHttpClient(`${base}/mcp`, { 'x-api-key': KEYS.agent });
    const call = (name: string, args: Record<string, unknown> = {}) =>
      agent.callTool({ name, arguments: args }) as Promise<CallToolResult>;
    await call('resetPassword', { login: 'ada', newPassword: 'correct horse battery' });
    await call('resetPassword', { login: 'ada', newPassword: 'short' });
    await call('refuse');
    await call('rare');
    await call('rare');
    await expect(call('purge')).rejects.toThrow(/Unknown tool/);
    await expect(call('made_up_name')).rejects.toThrow(/Unknown tool/);
    await agent.getPrompt({ name: 'summary' });
    await agent.readResource({ uri: 'desk://status' });
  });
  afterAll(async () => {
    await agent.close();
    await app.close();
  });

  it('serves the page to anyone the Host policy admits, with strict headers and no data', async () => {
    const page = await get('/admin').expect(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers).toMatchObject({
      'cache-control': 'no-store',
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
    });
    // Nothing inline: the script and the style sheet are files under the admin path.
    expect(page.headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(page.headers['x-powered-by']).toBeUndefined();
    expect(page.text).toContain('<script src="/admin/app.js" defer></script>');
    expect(page.text).toContain('<link rel="stylesheet" href="/admin/app.css" />');
    expect(page.text).not.toMatch(/<style|\{\{/);
    expect(page.text).not.toContain('resetPassword');
    const script = await get('/admin/app.js').expect(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.text).toMatch(/^'use strict';$/m);
    const style = await get('/admin/app.css').expect(200);
    expect(style.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(style.text).toContain(':root {');
    // Kept by the browser but revalidated on every use: 304 while the file is the same.
    for (const asset of [script, style]) {
      expect(asset.headers).toMatchObject({
        'cache-control': 'no-cache',
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      });
      expect(asset.headers.etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    }
    expect(script.headers.etag).not.toBe(style.headers.etag);
    const unchanged = await get('/admin/app.css').set('if-none-match', style.headers.etag).expect(304);
    expect(unchanged.headers).toMatchObject({ etag: style.headers.etag, 'cache-control': 'no-cache' });
    expect(unchanged.text ?? '').toBe('');
    expect(
      (await get('/admin/app.js').set('if-none-match', `W/"old", ${script.headers.etag}`).expect(304)).headers.etag,
    ).toBe(script.headers.etag);
    expect((await get('/admin/app.js').set('if-none-match', '"old"').expect(200)).text).toBe(script.text);
    await request(base).get('/admin/app.css').set('host', 'evil.example').expect(403);
    await request(base).get('/admin').set('host', 'evil.example').expect(403);
    await request(base)
      .get('/admin/api/health')
      .set('host', 'evil.example')
      .set('authorization', `Bearer ${KEYS.admin}`)
      .expect(403);
    await get('/admin/api/health', KEYS.admin).set('origin', 'https://evil.example').expect(403);
  });

  it('needs an administrator: the role admin or the scope mcp:admin', async () => {
    const none = await get('/admin/api/health').expect(401);
    expect(none.headers['www-authenticate']).toBe('Bearer realm="mcp-admin"');
    expect(none.body).toEqual({
      error: 'unauthenticated',
      message:
        'No API key: send Authorization: Bearer <key> or X-API-Key: <key>. The admin API needs an admin key or token.',
    });
    expect((await get('/admin/api/stats', 'wrong-key').expect(401)).body.message).toBe(
      'The API key is not valid. The admin API needs an admin key or token.',
    );
    const agentRefused = await get('/admin/api/stats', KEYS.agent).expect(403);
    expect(agentRefused.body).toEqual({
      error: 'forbidden',
      message: '"agent-7" is not an administrator: the admin API needs the role "admin" or the scope "mcp:admin".',
    });
    expect(agentRefused.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
    expect((await get('/admin/api/health', KEYS.admin).expect(200)).body.principal).toBe('ops');
    expect(
      (await request(base).get('/admin/api/health').set('x-api-key', KEYS.scoped).expect(200)).body.principal,
    ).toBe('ops-bot');
    expect((await get('/admin/api/nope', KEYS.admin).expect(404)).body.message).toBe(
      'No admin API "nope"; there are: health, catalog, stats, history, audit, sessions, approvals, policies, pins.',
    );
  });

  it('reports the host and its dependencies as readiness does', async () => {
    const { body } = await get('/admin/api/health', KEYS.admin).expect(200);
    expect(body).toMatchObject({
      status: 'ok',
      host: {
        replica: 'desk-eu-1',
        name: 'audited',
        version: '1.0.0',
        phase: 'ready',
        mode: 'stateful',
        auth: 'apiKey',
        sessions: 1,
        inFlight: 0,
        catalog: { tools: 8, prompts: 1, resources: 1, resourceTemplates: 0 },
      },
      dependencies: [{ name: 'audit:jsonl', status: 'up', required: true }],
    });
  });

  it('counts calls and errors per entry over the window, every catalog entry listed, made-up names not', async () => {
    const { body } = await get('/admin/api/stats', KEYS.admin).expect(200);
    expect(body).toMatchObject({ windowMinutes: 10, windowMs: 600_000, bucketMs: 20_000 });
    const byName = Object.fromEntries(
      body.entries.map((entry: { kind: string; name: string }) => [`${entry.kind}:${entry.name}`, entry]),
    );
    expect(Object.keys(byName)).toEqual([
      'tool:connect',
      'tool:count',
      'tool:digest',
      'tool:forbidden',
      'tool:purge',
      'tool:rare',
      'tool:refuse',
      'tool:resetPassword',
      'prompt:summary',
      'resource:desk://status',
    ]);
    expect(byName['tool:resetPassword']).toMatchObject({
      calls: 2,
      errors: 1,
      errorRate: 0.5,
      outcomes: { ok: 1, invalid: 1 },
      total: { calls: 2, errors: 1 },
    });
    expect(byName['tool:refuse']).toMatchObject({ calls: 1, errors: 1, outcomes: { tool_error: 1 } });
    expect(byName['tool:rare']).toMatchObject({ calls: 2, errors: 1, outcomes: { ok: 1, throttled: 1 } });
    expect(byName['tool:purge']).toMatchObject({ calls: 1, errors: 1, outcomes: { denied: 1 } });
    expect(byName['tool:connect']).toMatchObject({ calls: 0, errors: 0, latencyMs: null, lastCallAt: null });
    expect(byName['prompt:summary']).toMatchObject({ calls: 1, errors: 0 });
    expect(byName['resource:desk://status']).toMatchObject({ calls: 1, errors: 0 });
    const latency = byName['tool:resetPassword'].latencyMs;
    expect(latency.p50).toBeGreaterThan(0);
    expect(latency.p50).toBeLessThanOrEqual(latency.p95);
    expect(latency.p99).toBeLessThanOrEqual(latency.max);
    // Everything the host answered: initialize, its notification, lists, the calls above, refusals.
    expect(body.requests.calls).toBeGreaterThanOrEqual(10);
  });

  it('shows the catalog with schemas, access and the throttling @nestjs/throttler applies', async () => {
    const { body } = await get('/admin/api/catalog', KEYS.admin).expect(200);
    const tool = (name: string) => body.tools.find((t: { name: string }) => t.name === name);
    expect(body.throttlers).toEqual([{ name: 'default', limit: 1_000_000, ttlMs: 60_000 }]);
    expect(tool('rare')).toMatchObject({
      where: 'AuditedTools.rare',
      access: { scopes: [], roles: [] },
      throttle: [
        { throttler: 'default', limit: 1, ttlMs: 60_000, blockDurationMs: 60_000, skipped: false, source: 'method' },
      ],
      timeoutMs: 30_000,
      maxConcurrency: null,
      confirm: false,
    });
    expect(tool('resetPassword').throttle).toEqual([
      {
        throttler: 'default',
        limit: 1_000_000,
        ttlMs: 60_000,
        blockDurationMs: 60_000,
        skipped: false,
        source: 'module',
      },
    ]);
    expect(tool('resetPassword').definition.inputSchema).toMatchObject({
      type: 'object',
      properties: { login: { type: 'string' }, newPassword: { type: 'string', 'x-sensitive': true } },
    });
    expect(tool('purge').access).toEqual({ scopes: ['admin'], roles: [] });
    expect(body.prompts).toMatchObject([{ name: 'summary' }]);
    expect(body.resources).toMatchObject([
      { name: 'desk://status', definition: { uri: 'desk://status', name: 'status' } },
    ]);
  });

  it('lists live sessions with their principal and client', async () => {
    const { body } = await get('/admin/api/sessions', KEYS.admin).expect(200);
    expect(body).toMatchObject({ mode: 'stateful', count: 1, max: 10_000 });
    expect(body.sessions).toEqual([
      {
        id: expect.any(String),
        transport: 'http',
        principal: 'agent-7',
        client: { name: 'e2e-client', version: '0.0.1' },
        protocolVersion: '2025-11-25',
        initialized: true,
        createdAt: expect.any(String),
        lastSeenAt: expect.any(String),
        inFlight: 0,
        subscriptions: 0,
        stream: expect.any(Boolean),
      },
    ]);
  });

  it('filters recent audit records by principal, target and outcome, newest first', async () => {
    let records: { target: string | null; outcome: string; principal: string | null }[] = [];
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      records = (await get('/admin/api/audit?target=resetPassword', KEYS.admin).expect(200)).body.records;
      if (records.length === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(records.map((record) => record.outcome)).toEqual(['invalid', 'ok']);
    const { body } = await get('/admin/api/audit?principal=agent-7&outcome=throttled&limit=5', KEYS.admin).expect(200);
    expect(body).toMatchObject({
      enabled: true,
      health: { sink: 'jsonl', state: 'ok' },
      filter: { principal: 'agent-7', outcome: 'throttled', limit: 5 },
    });
    expect(body.records).toMatchObject([
      { method: 'tools/call', target: 'rare', outcome: 'throttled', principal: 'agent-7' },
    ]);
    expect(JSON.stringify(body)).not.toContain('correct horse battery');
    expect((await get('/admin/api/audit?outcome=bogus', KEYS.admin).expect(400)).body.message).toMatch(
      /^outcome "bogus" is not an outcome; use one of: ok, tool_error, /,
    );
    expect((await get('/admin/api/audit?limit=0', KEYS.admin).expect(400)).body.message).toBe(
      'limit "0" must be an integer from 1 to 500.',
    );
  });
});

describe('admin API without authentication or audit', () => {
  it('is open to loopback callers when auth is off, and says the audit is off', async () => {
    const { app, url } = await startFixtureApp();
    try {
      const base = url.replace(/\/mcp$/, '');
      const health = await request(base).get('/admin/api/health').expect(200);
      expect(health.body.principal).toBe('anonymous');
      // Without the replica option, the replica is <host name>-<pid>.
      expect(health.body.host.replica).toBe(defaultReplicaName(hostname(), process.pid));
      expect((await request(base).get('/admin/api/audit').expect(200)).body).toEqual({
        enabled: false,
        health: null,
        filter: { limit: 50 },
        records: [],
      });
    } finally {
      await app.close();
    }
  });

  it('is not mounted with admin: false, and moves with admin.path', async () => {
    const off = await startFixtureApp({ admin: false });
    try {
      await request(off.url.replace(/\/mcp$/, ''))
        .get('/admin')
        .expect(404);
    } finally {
      await off.app.close();
    }
    const moved = await startFixtureApp({ admin: { path: '/ops/mcp-admin' } });
    try {
      const base = moved.url.replace(/\/mcp$/, '');
      const page = await request(base).get('/ops/mcp-admin').expect(200);
      expect(page.text).toContain('<script src="/ops/mcp-admin/app.js" defer></script>');
      expect(page.text).toContain('<link rel="stylesheet" href="/ops/mcp-admin/app.css" />');
      await request(base).get('/ops/mcp-admin/app.css').expect(200).expect('content-type', 'text/css; charset=utf-8');
      await request(base).get('/ops/mcp-admin/api/stats').expect(200);
      await request(base).get('/admin').expect(404);
    } finally {
      await moved.app.close();
    }
  });
});
