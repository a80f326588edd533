import { mkdtemp, readFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CreateTaskResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import request from 'supertest';
import { defaultReplicaName, McpMetrics } from '#libs/operations';
import { AuditTrail, hashApiKey } from '#libs/security';
import { connectHttpClient, PLATFORMS, startFixtureApp } from './support/fixture-app';
import { freePort } from './support/free-port';
import { parsePrometheusText, sampleValue, type PromSample } from './support/prometheus-text';
import { waitForAsync } from './support/wait-for';

const KEYS = { admin: 'mk_admin_metrics_0001', scoped: 'mk_scope_metrics_0002', agent: 'mk_agent_metrics_0003' };
const AUTH = {
  mode: 'apiKey' as const,
  keys: [
    { hash: hashApiKey(KEYS.admin), principal: 'ops', roles: ['admin'] },
    { hash: hashApiKey(KEYS.scoped), principal: 'prometheus', scopes: ['mcp:admin'] },
    { hash: hashApiKey(KEYS.agent), principal: 'agent-7', scopes: [] },
  ],
};
const TOKEN = 'scrape-token-9f8e7d6c5b4a';

const call = (client: Client, name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>) =>
  client.callTool({ name, arguments: args, ...(meta && { _meta: meta }) }) as Promise<CallToolResult>;

async function scrape(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ samples: PromSample[]; types: Map<string, string> }> {
  const response = await fetch(url, { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parsePrometheusText(await response.text());
}

const requests = (samples: PromSample[], labels: Record<string, string>) =>
  sampleValue(samples, 'mcp_requests_total', labels);

/** Prometheus metrics and OpenTelemetry spans of a real host, driven by the SDK client over HTTP. */
describe('Prometheus metrics', () => {
  describe('on the main HTTP server, authentication off (loopback only)', () => {
    let app: INestApplication;
    let base: string;
    let client: Client;

    beforeAll(async () => {
      const started = await startFixtureApp();
      app = started.app;
      base = started.url.replace(/\/mcp$/, '');
      client = await connectHttpClient(started.url);
      for (let i = 0; i < 3; i++)
        expect(await call(client, 'add', { a: i, b: 1 })).toMatchObject({
          content: [{ type: 'text', text: String(i + 1) }],
        });
      for (let i = 0; i < 2; i++) expect(await call(client, 'failBusiness')).toMatchObject({ isError: true });
      await expect(call(client, 'no_such_tool')).rejects.toMatchObject({ code: -32602 });
      await expect(call(client, 'made_up_too')).rejects.toMatchObject({ code: -32602 });
      await client.readResource({ uri: 'kb://articles/vpn-setup' });
      await client.readResource({ uri: 'kb://articles/password-reset' });
      await expect(client.readResource({ uri: 'kb://articles/missing' })).rejects.toMatchObject({ code: -32002 });
    });
    afterAll(async () => {
      await client.close();
      await app.close();
    });

    it('counts every call exactly, by tool, outcome and catalog entry, with unknown names as "other"', async () => {
      const { samples, types } = await scrape(`${base}/metrics`);
      expect(requests(samples, { method: 'initialize', kind: '', target: '', outcome: 'ok' })).toBe(1);
      expect(requests(samples, { method: 'tools/call', kind: 'tool', target: 'add', outcome: 'ok' })).toBe(3);
      expect(
        requests(samples, { method: 'tools/call', kind: 'tool', target: 'failBusiness', outcome: 'tool_error' }),
      ).toBe(2);
      expect(requests(samples, { method: 'tools/call', kind: 'tool', target: 'other', outcome: 'invalid' })).toBe(2);
      expect(
        requests(samples, {
          method: 'resources/read',
          kind: 'resource',
          target: 'kb://articles/{slug}',
          outcome: 'ok',
        }),
      ).toBe(2);
      expect(
        requests(samples, {
          method: 'resources/read',
          kind: 'resource',
          target: 'kb://articles/{slug}',
          outcome: 'not_found',
        }),
      ).toBe(1);
      // Nothing else was called: no other tools/call series, no made-up names as label values.
      const callSeries = samples.filter(
        (sample) => sample.name === 'mcp_requests_total' && sample.labels.method === 'tools/call',
      );
      expect(
        callSeries.map((sample) => `${sample.labels.target}/${sample.labels.outcome}=${sample.value}`).sort(),
      ).toEqual(['add/ok=3', 'failBusiness/tool_error=2', 'other/invalid=2']);
      expect(
        samples.some((sample) =>
          Object.values(sample.labels).some((value) => value.includes('no_such_tool') || value.includes('vpn-setup')),
        ),
      ).toBe(false);

      const add = { method: 'tools/call', kind: 'tool', target: 'add' };
      expect(sampleValue(samples, 'mcp_request_duration_seconds_count', add)).toBe(3);
      expect(sampleValue(samples, 'mcp_request_duration_seconds_bucket', { ...add, le: '+Inf' })).toBe(3);
      expect(sampleValue(samples, 'mcp_request_duration_seconds_sum', add)).toBeGreaterThan(0);
      const buckets = samples
        .filter((sample) => sample.name === 'mcp_request_duration_seconds_bucket' && sample.labels.target === 'add')
        .map((sample) => sample.value);
      expect(buckets).toHaveLength(15);
      expect(buckets).toEqual([...buckets].sort((a, b) => a - b));

      expect(sampleValue(samples, 'mcp_in_flight')).toBe(0);
      expect(sampleValue(samples, 'mcp_sessions_active')).toBe(1);
      expect(sampleValue(samples, 'mcp_throttled_total', { transport: 'http' })).toBe(0);
      expect(sampleValue(samples, 'mcp_process_cpu_user_seconds_total')).toBeGreaterThan(0);
      expect(samples.filter((sample) => sample.name.startsWith('mcp_audit_'))).toEqual([]);
      // Every sample names the replica: without the option, <host name>-<pid> (this test process).
      const replica = defaultReplicaName(hostname(), process.pid);
      expect(replica.endsWith(`-${process.pid}`)).toBe(true);
      expect(samples.filter((sample) => sample.labels.replica !== replica)).toEqual([]);
      expect(
        Object.fromEntries(
          ['mcp_requests_total', 'mcp_request_duration_seconds', 'mcp_in_flight', 'mcp_denied_total'].map((name) => [
            name,
            types.get(name),
          ]),
        ),
      ).toEqual({
        mcp_requests_total: 'counter',
        mcp_request_duration_seconds: 'histogram',
        mcp_in_flight: 'gauge',
        mcp_denied_total: 'counter',
      });
    });

    it('counts what happens between two scrapes', async () => {
      const before = (await scrape(`${base}/metrics`)).samples;
      await call(client, 'add', { a: 1, b: 1 });
      const after = (await scrape(`${base}/metrics`)).samples;
      const labels = { method: 'tools/call', kind: 'tool', target: 'add', outcome: 'ok' };
      expect(requests(after, labels)! - requests(before, labels)!).toBe(1);
    });

    it('applies the Host policy and refuses other methods', async () => {
      await request(base).get('/metrics').set('host', 'evil.example').expect(403);
      await request(base).get('/metrics').set('origin', 'https://evil.example').expect(403);
      await request(base).post('/metrics').expect(404);
    });
  });

  describe.each(PLATFORMS)('with API keys, an audit trail and a token (%s)', (platform) => {
    let app: INestApplication;
    let base: string;
    let agent: Client;

    beforeAll(async () => {
      const file = join(await mkdtemp(join(tmpdir(), 'mcp-metrics-')), 'audit.jsonl');
      const started = await startFixtureApp(
        { auth: AUTH, audit: { file, flushIntervalMs: 10 }, metrics: { token: TOKEN }, replica: 'desk-eu-2' },
        undefined,
        platform,
      );
      app = started.app;
      base = started.url.replace(/\/mcp$/, '');
      agent = await connectHttpClient(started.url, { 'x-api-key': KEYS.agent });
      await call(agent, 'add', { a: 1, b: 2 });
      await call(agent, 'failBusiness');
    });
    afterAll(async () => {
      await agent.close();
      await app.close();
    });

    it('refuses scrapes without admin credentials, like the admin API, and counts the refusals', async () => {
      const none = await request(base).get('/metrics').expect(401);
      expect(none.headers['www-authenticate']).toBe('Bearer realm="mcp-metrics"');
      expect(none.body).toEqual({
        error: 'unauthenticated',
        message:
          'No API key: send Authorization: Bearer <key> or X-API-Key: <key>. The metrics endpoint needs an admin key or token.',
      });
      await request(base).get('/metrics').set('authorization', 'Bearer not-the-token-000000').expect(401);
      const agentScrape = await request(base).get('/metrics').set('x-api-key', KEYS.agent).expect(403);
      expect(agentScrape.body.message).toBe(
        '"agent-7" is not an administrator: the metrics endpoint needs the role "admin" or the scope "mcp:admin".',
      );
      // An MCP request without a key is refused by the transport.
      await request(base)
        .post('/mcp')
        .set('content-type', 'application/json')
        .set('accept', 'application/json, text/event-stream')
        .send({ jsonrpc: '2.0', id: 1, method: 'ping' })
        .expect(401);

      const { samples } = await scrape(`${base}/metrics`, { authorization: `Bearer ${KEYS.admin}` });
      expect(sampleValue(samples, 'mcp_unauthenticated_total', { transport: 'http' })).toBe(3);
      expect(sampleValue(samples, 'mcp_denied_total', { transport: 'http' })).toBe(1);
      expect(requests(samples, { method: '', outcome: 'unauthenticated' })).toBe(3);
      expect(requests(samples, { method: 'tools/call', target: 'add', outcome: 'ok' })).toBe(1);
    });

    it('labels every line with the replica option', async () => {
      const response = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      const lines = (await response.text()).split('\n').filter((line) => line && !line.startsWith('#'));
      expect(lines.length).toBeGreaterThan(50);
      expect(lines.filter((line) => !line.includes('replica="desk-eu-2"'))).toEqual([]);
      expect(lines).toContain('mcp_denied_total{transport="http",replica="desk-eu-2"} 1');
      expect(lines).toContain('mcp_in_flight{replica="desk-eu-2"} 0');
      expect(lines).toContain(
        'mcp_requests_total{method="tools/call",kind="tool",target="add",outcome="ok",replica="desk-eu-2"} 1',
      );
    });

    it('accepts the admin role, the mcp:admin scope and the token', async () => {
      await scrape(`${base}/metrics`, { authorization: `Bearer ${KEYS.admin}` });
      await scrape(`${base}/metrics`, { 'x-api-key': KEYS.scoped });
      await scrape(`${base}/metrics`, { authorization: `Bearer ${TOKEN}` });
    });

    it('reports the audit trail exactly as it stands', async () => {
      const trail = app.get(AuditTrail);
      await trail.flush();
      const { samples } = await scrape(`${base}/metrics`, { authorization: `Bearer ${TOKEN}` });
      const health = trail.health();
      expect(health.written).toBeGreaterThanOrEqual(3);
      expect({
        written: sampleValue(samples, 'mcp_audit_written_total'),
        dropped: sampleValue(samples, 'mcp_audit_dropped_total'),
        failures: sampleValue(samples, 'mcp_audit_failures_total'),
        queued: sampleValue(samples, 'mcp_audit_queue_depth'),
      }).toEqual({ written: health.written, dropped: 0, failures: 0, queued: 0 });
    });
  });

  describe('on a port of its own', () => {
    it('serves only there, to the token or an admin key, and closes with the app', async () => {
      const port = await freePort();
      const { app, url } = await startFixtureApp({ auth: AUTH, metrics: { port, token: TOKEN } });
      const own = `http://127.0.0.1:${port}`;
      try {
        const client = await connectHttpClient(url, { authorization: `Bearer ${KEYS.agent}` });
        await call(client, 'add', { a: 2, b: 2 });
        await client.close();
        const { samples } = await scrape(`${own}/metrics`, { authorization: `Bearer ${TOKEN}` });
        expect(requests(samples, { method: 'tools/call', target: 'add', outcome: 'ok' })).toBe(1);
        await scrape(`${own}/metrics?x=1`, { authorization: `Bearer ${KEYS.admin}` });
        // Prometheus addresses targets by IP and port: with a credential the Host is not checked here.
        await request(own)
          .get('/metrics')
          .set('host', '10.1.2.3:9464')
          .set('authorization', `Bearer ${TOKEN}`)
          .expect(200);
        await request(own).get('/metrics').expect(401);
        await request(own).get('/other').expect(404);
        await request(own).post('/metrics').expect(405).expect('allow', 'GET, HEAD');
        // Not on the main server.
        await request(url.replace(/\/mcp$/, ''))
          .get('/metrics')
          .set('authorization', `Bearer ${TOKEN}`)
          .expect(404);
      } finally {
        await app.close();
      }
      await expect(fetch(`${own}/metrics`)).rejects.toThrow();
    });
  });

  it('counts nothing and serves nothing with metrics: false', async () => {
    const { app, url } = await startFixtureApp({ metrics: false });
    try {
      const client = await connectHttpClient(url);
      await call(client, 'add', { a: 1, b: 1 });
      await client.close();
      await request(url.replace(/\/mcp$/, ''))
        .get('/metrics')
        .expect(404);
      expect(await app.get(McpMetrics).metrics()).not.toContain('mcp_requests_total{');
    } finally {
      await app.close();
    }
  });
});

describe('OpenTelemetry tracing', () => {
  const CLIENT_TRACE = '0af7651916cd43dd8448eb211c80319c';
  const CLIENT_SPAN = 'b7ad6b7169203331';
  const HEADER_TRACE = '5c1c63257de34c67b3d1dbc4c0e5a0b1';
  const HEADER_SPAN = 'a3ce929d0e0e4736';
  const exporter = new InMemorySpanExporter();
  let app: INestApplication;
  let url: string;
  let file: string;
  let client: Client;

  beforeAll(async () => {
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    file = join(await mkdtemp(join(tmpdir(), 'mcp-tracing-')), 'audit.jsonl');
    ({ app, url } = await startFixtureApp({ audit: { file, flushIntervalMs: 10 } }));
    // Every HTTP request of this client carries a traceparent header too.
    client = await connectHttpClient(url, { traceparent: `00-${HEADER_TRACE}-${HEADER_SPAN}-01` });
  });
  afterAll(async () => {
    trace.disable();
    await client.close();
    await app.close();
  });

  const auditRecords = async () => {
    await app.get(AuditTrail).flush();
    return (await readFile(file, 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map(
        (line) =>
          JSON.parse(line) as { method: string; target: string | null; outcome: string; traceId: string | null },
      );
  };

  it('makes a SERVER span child of the _meta traceparent, with the MCP attributes, and the audit record carries its trace id', async () => {
    exporter.reset();
    await call(
      client,
      'add',
      { a: 20, b: 22 },
      { traceparent: `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`, tracestate: 'vendor=opaque' },
    );
    const [span] = exporter.getFinishedSpans().filter((finished) => finished.name === 'tools/call add');
    expect(span).toBeDefined();
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.spanContext().traceId).toBe(CLIENT_TRACE);
    expect(span.parentSpanContext).toMatchObject({ traceId: CLIENT_TRACE, spanId: CLIENT_SPAN, isRemote: true });
    // The HTTP request's own context is linked, not the parent.
    expect(span.links.map((link) => link.context.spanId)).toEqual([HEADER_SPAN]);
    expect(span.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'add',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2025-11-25',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'client.address': '127.0.0.1',
    });
    expect(span.attributes['mcp.session.id']).toMatch(/^[\da-f-]{36}$/);
    expect(span.attributes['jsonrpc.request.id']).toMatch(/^\d+$/);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);

    const record = (await auditRecords()).find((entry) => entry.method === 'tools/call' && entry.target === 'add');
    expect(record).toMatchObject({ outcome: 'ok', traceId: CLIENT_TRACE });
  });

  it('takes the HTTP traceparent header as parent without _meta, and marks failures', async () => {
    exporter.reset();
    expect(await call(client, 'failBusiness')).toMatchObject({ isError: true });
    await expect(call(client, 'no_such_tool')).rejects.toMatchObject({ code: -32602 });
    const spans = exporter.getFinishedSpans();
    const failed = spans.find((span) => span.name === 'tools/call failBusiness')!;
    expect(failed.parentSpanContext).toMatchObject({ traceId: HEADER_TRACE, spanId: HEADER_SPAN });
    expect(failed.attributes['error.type']).toBe('tool_error');
    expect(failed.status.code).toBe(SpanStatusCode.ERROR);
    // An unknown name stays out of the span name (cardinality), not out of the attributes.
    const unknown = spans.find((span) => span.attributes['gen_ai.tool.name'] === 'no_such_tool')!;
    expect(unknown.name).toBe('tools/call');
    expect(unknown.attributes).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602' });
    expect(unknown.status).toEqual({ code: SpanStatusCode.ERROR, message: 'Unknown tool: no_such_tool' });
  });

  it("gives a task's background run the trace id of the call that created it", async () => {
    const traceId = 'feedfacefeedfacefeedfacefeedface';
    const { task } = (await client.request(
      {
        method: 'tools/call',
        params: {
          name: 'countSlowly',
          arguments: { to: 2 },
          task: {},
          _meta: { traceparent: `00-${traceId}-${CLIENT_SPAN}-01` },
        },
      } as never,
      CreateTaskResultSchema,
    )) as { task: { taskId: string } };
    expect(
      exporter
        .getFinishedSpans()
        .find((span) => span.name === 'tools/call countSlowly')
        ?.spanContext().traceId,
    ).toBe(traceId);
    await waitForAsync(async () => (await auditRecords()).some((entry) => entry.method === 'tasks/run'));
    const run = (await auditRecords()).find((entry) => entry.method === 'tasks/run')!;
    expect(run).toMatchObject({ outcome: 'ok', traceId });
    expect(task.taskId).toMatch(/^[\da-f-]{36}$/);
  });

  it("still records the caller's trace id in the audit trail when no SDK is registered", async () => {
    trace.disable();
    exporter.reset();
    const traceId = 'c0ffee00c0ffee00c0ffee00c0ffee00';
    await call(client, 'add', { a: 5, b: 5 }, { traceparent: `00-${traceId}-${CLIENT_SPAN}-01` });
    expect(exporter.getFinishedSpans()).toEqual([]);
    const records = (await auditRecords()).filter((entry) => entry.method === 'tools/call' && entry.target === 'add');
    expect(records.at(-1)).toMatchObject({ outcome: 'ok', traceId });
  });
});
