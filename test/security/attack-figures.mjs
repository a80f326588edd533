// Attacks the support desk as the hardening review did, and prints what got through, as JSON:
//   npm run build && node test/security/attack-figures.mjs [checkout]
// `checkout` (default: this one) must have dist/ built; run it on an older checkout to compare.
// Each attack starts a fresh desk process (loopback, a temporary audit file).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as types from '@modelcontextprotocol/sdk/types.js';

const root = resolve(process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', '..'));

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

async function startDesk(env) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'attack-'));
  const child = spawn(process.execPath, [join(root, 'dist/src/main.js')], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      AUDIT_FILE: join(dir, 'audit.jsonl'),
      SUPPORT_REPORT_STEP_MS: '200',
      THROTTLE_LIMIT: '1000000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.on('data', (c) => (log += c));
  child.stderr.on('data', (c) => (log += c));
  const url = `http://127.0.0.1:${port}/mcp`;
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health/live`)).ok) break;
    } catch {
      /* not listening yet: poll again */
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    base: `http://127.0.0.1:${port}`,
    child,
    log: () => log,
    pid: child.pid,
    audit: join(dir, 'audit.jsonl'),
    stop: () =>
      new Promise((r) => {
        child.once('exit', r);
        child.kill('SIGTERM');
      }),
  };
}

async function client(url, headers = {}, capabilities = {}) {
  const c = new Client({ name: 'attacker', version: '1' }, { capabilities });
  await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return c;
}
const ok = (p) =>
  p.then(
    () => true,
    () => false,
  );
const rss = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
const READER = { 'x-api-key': 'desk-demo-read-only-key' };
const ADMIN = { 'x-api-key': 'desk-demo-admin-key' };
const figures = {};

// 1. Tasks across principals, stateless host.
{
  const desk = await startDesk({ AUTH_MODE: 'apiKey', MCP_MODE: 'stateless' });
  const admin = await client(desk.url, ADMIN);
  const created = await admin.request(
    { method: 'tools/call', params: { name: 'export_ticket_report', arguments: {}, task: {} } },
    types.CreateTaskResultSchema,
  );
  const taskId = created.task.taskId;
  const reader = await client(desk.url, READER);
  const listed = await reader.request({ method: 'tasks/list', params: {} }, types.ListTasksResultSchema).then(
    (r) => r.tasks.length,
    () => 0,
  );
  const get = await ok(reader.request({ method: 'tasks/get', params: { taskId } }, types.GetTaskResultSchema));
  const result = await ok(reader.request({ method: 'tasks/result', params: { taskId } }, types.CallToolResultSchema));
  const created2 = await admin.request(
    { method: 'tools/call', params: { name: 'export_ticket_report', arguments: {}, task: {} } },
    types.CreateTaskResultSchema,
  );
  const cancel = await ok(
    reader.request({ method: 'tasks/cancel', params: { taskId: created2.task.taskId } }, types.CancelTaskResultSchema),
  );
  figures.tasksAcrossPrincipals = {
    readerSawTasksOfAdmin: listed,
    getAllowed: get,
    resultAllowed: result,
    cancelAllowed: cancel,
  };
  await admin.close();
  await reader.close();
  await desk.stop();
}

// 2. Self-confirmation by the agent, 3. mass assignment (auth none: the local operator).
{
  const desk = await startDesk({});
  const agent = await client(desk.url);
  const args = { ticketId: 'T-2002', resolution: 'closed by the model itself' };
  const first = await agent.callTool({ name: 'close_ticket', arguments: args });
  const text = first.content[0].text;
  const token =
    first._meta?.['nest-mcp-host/confirmationToken'] ?? /"nest-mcp-host\/confirmationToken": "([^"]+)"/.exec(text)?.[1];
  await agent.callTool({
    name: 'close_ticket',
    arguments: args,
    _meta: token ? { 'nest-mcp-host/confirmationToken': token } : {},
  });
  const ticket = (await agent.callTool({ name: 'get_ticket', arguments: { ticketId: 'T-2002' } })).structuredContent;
  figures.selfConfirmation = { tokenShownToModel: Boolean(token), closedWithoutAPerson: ticket.status === 'closed' };
  const before = (await agent.callTool({ name: 'get_ticket', arguments: { ticketId: 'T-2008' } })).structuredContent;
  const sneaky = await agent.callTool({
    name: 'create_ticket',
    arguments: {
      id: 'T-2008',
      customerId: 'C-1001',
      subject: 'Overwritten ticket',
      description: 'This replaced an existing ticket.',
      priority: 'low',
    },
  });
  const after = (await agent.callTool({ name: 'get_ticket', arguments: { ticketId: 'T-2008' } })).structuredContent;
  figures.massAssignment = {
    refused: Boolean(sneaky.isError),
    ticketT2008Replaced: after.subject !== before.subject,
    answer: sneaky.content[0].text.slice(0, 140),
  };
  // 15. Validation messages.
  const wrong = await agent.callTool({ name: 'search_tickets', arguments: { limit: '3', customerId: 1001 } });
  figures.validationMessage = wrong.content[0].text;
  // 14. A reader's mistakes in the error log.
  const errorsBefore = (desk.log().match(/ERROR/g) ?? []).length;
  for (let i = 0; i < 20; i++) await agent.readResource({ uri: `kb://articles/nope-${i}` }).catch(() => undefined);
  await new Promise((r) => setTimeout(r, 300));
  figures.errorLogLinesFor20UnknownReads = (desk.log().match(/ERROR/g) ?? []).length - errorsBefore;
  figures.stackLinesFor20UnknownReads = (desk.log().match(/\n\s+at /g) ?? []).length;
  // 16. X-Powered-By.
  figures.xPoweredByOnHealth = (await fetch(`${desk.base}/health/live`)).headers.get('x-powered-by');
  await agent.close();
  await desk.stop();
}

// 4. Failed authentications per address across surfaces.
{
  const desk = await startDesk({ AUTH_MODE: 'apiKey' });
  let accepted = 0;
  for (let i = 0; i < 60; i++) {
    const target = i % 2 ? `${desk.base}/admin/api/health` : desk.url;
    const response =
      i % 2
        ? await fetch(target, { headers: { 'x-api-key': `guess-${i}` } })
        : await fetch(target, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': `guess-${i}` },
            body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
          });
    if (response.status === 401) accepted++;
  }
  figures.keyGuessesPerMinuteAcrossSurfaces = accepted;
  await desk.stop();
}

// 5. Session cap held hostage by the read-only key.
{
  const desk = await startDesk({ AUTH_MODE: 'apiKey' });
  const init = (headers) =>
    fetch(desk.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
      }),
    });
  const started = performance.now();
  let opened = 0;
  for (let i = 0; i < 10_000; i += 50) {
    const statuses = await Promise.all(
      Array.from({ length: 50 }, () => init(READER).then((r) => (r.body?.cancel(), r.status))),
    );
    opened += statuses.filter((s) => s === 200).length;
    if (statuses.every((s) => s !== 200)) break;
  }
  figures.sessionsOpenedByReadOnlyKey = opened;
  figures.sessionFloodSeconds = ((performance.now() - started) / 1000).toFixed(1);
  figures.adminInitializeAfterwards = (await init(ADMIN)).status;
  await desk.stop();
}

// 6. Subscriptions with ~99 KB URIs.
{
  const desk = await startDesk({ AUTH_MODE: 'apiKey' });
  const reader = await client(desk.url, READER);
  const before = rss(desk.pid);
  let accepted = 0;
  for (let i = 0; i < 4_000; i++) {
    if (await ok(reader.subscribeResource({ uri: `kb://articles/${i}-${'x'.repeat(99_000)}` }))) accepted++;
  }
  figures.subscriptions = { accepted, of: 4_000, rssGrowthMb: Math.round(rss(desk.pid) - before) };
  await reader.close();
  await desk.stop();
}

// 11. A cancelled request, stateful and stateless.
for (const mode of ['stateful', 'stateless']) {
  const desk = await startDesk({ MCP_MODE: mode });
  const agent = await client(desk.url);
  const answers = [];
  const transport = agent.transport;
  const handle = transport.onmessage;
  transport.onmessage = (m) => {
    if ('result' in m || 'error' in m) answers.push(m.id);
    handle(m);
  };
  const controller = new AbortController();
  await agent
    .callTool({ name: 'export_ticket_report', arguments: {} }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort('stop'),
    })
    .catch(() => undefined);
  await new Promise((r) => setTimeout(r, 6_000)); // the report takes 20 steps of 200 ms if not stopped
  await agent.close();
  await desk.stop();
  const record = readFileSync(desk.audit, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .find((r) => r.target === 'export_ticket_report');
  figures[`cancelled_${mode}`] = {
    responsesToTheCancelledRequest: answers.length,
    auditOutcome: record?.outcome,
    ranForMs: record && Math.round(record.latencyMs),
  };
}

// 7. A flood of requests without credentials, in the audit trail.
{
  const desk = await startDesk({ AUTH_MODE: 'apiKey' });
  for (let sent = 0; sent < 20_000; sent += 100) {
    await Promise.all(
      Array.from({ length: 100 }, () =>
        fetch(desk.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
        }).then((r) => r.body?.cancel()),
      ),
    );
  }
  await desk.stop();
  const lines = readFileSync(desk.audit, 'utf8').trim().split('\n');
  figures.flood20000Unauthenticated = {
    trailBytes: statSync(desk.audit).size,
    records: lines.length,
    refusalsAccountedFor: lines
      .map((l) => JSON.parse(l))
      .reduce((sum, r) => sum + (r.method === null ? (r.count ?? 1) : 0), 0),
  };
}

console.log(JSON.stringify(figures, null, 1));
process.exit(0);
