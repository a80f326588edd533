// What a graceful stop keeps: calls in flight at SIGTERM, answers delivered, records written.
// The support desk (dist/src) as processes, driven by the official SDK clients:
//   1. HTTP: DRAIN_CALLS calls in flight (a third SDK v1 JSON, a third SDK v1 on SSE with
//      progress, a third SDK v2 at 2026-07-28) when the desk gets SIGTERM; once with reports that
//      end inside the drain, once with reports that outlast it (each cancelled and answered so);
//   2. stdio: the same, DRAIN_CALLS calls over one stdio connection;
//   3. three replicas behind round-robin HAProxy and Redis, restarted one after the other while
//      DRAIN_CLIENTS clients call in loops.
// Each trail is checked with audit:verify.
//
//   npm run build && node test/bench/drain.mjs     (DRAIN_CALLS=60 DRAIN_CLIENTS=12)
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startHaproxy } from './bench-processes.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(join(root, 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { Client: ClientV2, StreamableHTTPClientTransport: TransportV2 } = require('@modelcontextprotocol/client');

const CALLS = Number(process.env.DRAIN_CALLS ?? 60);
const CLIENTS = Number(process.env.DRAIN_CLIENTS ?? 12);
const MAIN = join(root, 'dist', 'src', 'main.js');
const STDIO = join(root, 'dist', 'src', 'main.stdio.js');
const VERIFY = join(root, 'dist', 'apps', 'audit-verify', 'src', 'main.js');
const directory = mkdtempSync(join(tmpdir(), 'drain-bench-'));
const CANCELLED = /^Call to tool "export_ticket_report" was cancelled: the host is shutting down/;
/** Reports that end inside the 10 s drain, and reports that outlast a 1 s one. */
const ROUNDS = [
  { name: 'end inside the drain', step: '300', drain: '10000' },
  { name: 'outlast the drain', step: '2000', drain: '1000' },
];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const exited = (child) =>
  new Promise((resolve) =>
    child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', resolve),
  );

async function ready(port) {
  for (let attempt = 0; attempt < 300; attempt++) {
    const status = await fetch(`http://127.0.0.1:${port}/health/ready`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return;
    await sleep(100);
  }
  throw new Error(`the desk on ${port} did not get ready`);
}

function desk(port, env) {
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      THROTTLE_LIMIT: '1000000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.on('data', (chunk) => (log += chunk));
  child.stderr.on('data', (chunk) => (log += chunk));
  child.log = () => log;
  return child;
}

function trail(file) {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

function verified(file) {
  return /^OK/.test(execFileSync(process.execPath, [VERIFY, file], { encoding: 'utf8' }));
}

/** Sorts the answers: a report, a cancellation that says so, or anything else (a lost answer). */
function tally(results) {
  const count = { reports: 0, cancelled: 0, lost: 0 };
  for (const result of results) {
    const text = result.status === 'fulfilled' ? (result.value.content?.[0]?.text ?? '') : '';
    if (result.status === 'fulfilled' && !result.value.isError && /^Report of/.test(text)) count.reports++;
    else if (CANCELLED.test(text)) count.cancelled++;
    else count.lost++;
  }
  return count;
}

async function httpRound({ name, step, drain }) {
  const port = await freePort();
  const file = join(directory, `http-${step}.jsonl`);
  const child = desk(port, { SUPPORT_REPORT_STEP_MS: step, MCP_SHUTDOWN_TIMEOUT_MS: drain, AUDIT_FILE: file });
  await ready(port);
  const url = new URL(`http://127.0.0.1:${port}/mcp`);
  const calls = [];
  const clients = [];
  for (let index = 0; index < CALLS; index++) {
    const kind = index % 3;
    const client =
      kind === 2
        ? new ClientV2({ name: 'drain-v2', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
        : new Client({ name: kind === 0 ? 'drain-json' : 'drain-sse', version: '1' });
    await client.connect(kind === 2 ? new TransportV2(url) : new StreamableHTTPClientTransport(url));
    clients.push(client);
    const options = { timeout: 120_000, ...(kind === 1 && { onprogress: () => undefined }) };
    calls.push(
      kind === 2
        ? client.callTool({ name: 'export_ticket_report', arguments: {} }, options)
        : client.callTool({ name: 'export_ticket_report', arguments: {} }, undefined, options),
    );
  }
  await sleep(200);
  child.kill('SIGTERM');
  const answers = tally(await Promise.allSettled(calls));
  await exited(child);
  await Promise.allSettled(clients.map((client) => client.close()));
  const records = trail(file).filter((record) => record.method === 'tools/call').length;
  return {
    surface: 'HTTP (JSON, SSE, 2026-07-28)',
    round: name,
    inFlight: CALLS,
    ...answers,
    records,
    verified: verified(file),
  };
}

async function stdioRound({ name, step, drain }) {
  const file = join(directory, `stdio-${step}.jsonl`);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [STDIO],
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      SUPPORT_REPORT_STEP_MS: step,
      MCP_SHUTDOWN_TIMEOUT_MS: drain,
      AUDIT_FILE: file,
      THROTTLE_LIMIT: '1000000',
    },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'drain-stdio', version: '1' });
  await client.connect(transport);
  const calls = Array.from({ length: CALLS }, () =>
    client.callTool({ name: 'export_ticket_report', arguments: {} }, undefined, { timeout: 120_000 }),
  );
  await sleep(200);
  const pid = transport.pid;
  process.kill(pid, 'SIGTERM');
  const answers = tally(await Promise.allSettled(calls));
  for (let attempt = 0; attempt < 400; attempt++) {
    try {
      process.kill(pid, 0);
      await sleep(50);
    } catch {
      break;
    }
  }
  await client.close().catch(() => undefined);
  const records = trail(file).filter((record) => record.method === 'tools/call').length;
  return { surface: 'stdio', round: name, inFlight: CALLS, ...answers, records, verified: verified(file) };
}

/** Three replicas behind HAProxy and Redis, each restarted in turn under load. */
async function rollingRestart() {
  const redisPort = await freePort();
  const redis = spawn('redis-server', ['--port', String(redisPort), '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  await sleep(300);
  const names = ['roll-1', 'roll-2', 'roll-3'];
  const ports = await Promise.all(names.map(() => freePort()));
  const env = (name) => ({
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    MCP_REPLICA: name,
    AUDIT_FILE: join(directory, `${name}.jsonl`),
    AUDIT_CHAIN: name,
    SUPPORT_REPORT_STEP_MS: '300',
    MCP_SHUTDOWN_TIMEOUT_MS: '600',
    MCP_REQUEST_STATE_SECRET: 'a-request-state-secret-of-at-least-32-bytes',
    // The drain says how many requests it saw through.
    LOG_LEVEL: 'log',
  });
  const replicas = names.map((name, index) => desk(ports[index], env(name)));
  await Promise.all(ports.map(ready));
  const proxyPort = await freePort();
  const haproxy = startHaproxy(directory, proxyPort, ports, { healthChecks: true });
  await ready(proxyPort);
  const url = new URL(`http://127.0.0.1:${proxyPort}/mcp`);
  let running = true;
  const tallies = [];
  const loops = [];
  for (let index = 0; index < CLIENTS; index++) {
    const modern = index % 3 === 2;
    const name = `roll-client-${index}`;
    const client = modern
      ? new ClientV2({ name, version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
      : new Client({ name, version: '1' });
    await client.connect(modern ? new TransportV2(url) : new StreamableHTTPClientTransport(url));
    const count = { name, reports: 0, searches: 0, cancelled: 0, lost: 0 };
    tallies.push(count);
    loops.push(
      (async () => {
        for (let call = 0; running; call++) {
          const report = call % 4 === 3;
          const params = report
            ? { name: 'export_ticket_report', arguments: {} }
            : { name: 'search_customers', arguments: { query: 'contoso' } };
          const options = { timeout: 60_000, ...(index % 3 === 1 && { onprogress: () => undefined }) };
          try {
            const result = modern
              ? await client.callTool(params, options)
              : await client.callTool(params, undefined, options);
            const text = result.content?.[0]?.text ?? '';
            if (!result.isError) count[report ? 'reports' : 'searches']++;
            else if (CANCELLED.test(text)) count.cancelled++;
            else count.lost++;
          } catch {
            count.lost++;
          }
        }
        await client.close().catch(() => undefined);
      })(),
    );
  }
  let inFlight = 0;
  await sleep(1_000);
  for (let index = 0; index < names.length; index++) {
    replicas[index].kill('SIGTERM');
    await exited(replicas[index]);
    inFlight += Number(/Drained (\d+) request/.exec(replicas[index].log())?.[1] ?? 0);
    replicas[index] = desk(ports[index], env(names[index]));
    await ready(ports[index]);
    await sleep(1_000);
  }
  running = false;
  await Promise.all(loops);
  for (const replica of replicas) {
    replica.kill('SIGTERM');
    await exited(replica);
  }
  haproxy.kill('SIGTERM');
  redis.kill('SIGTERM');
  const records = names
    .flatMap((name) => trail(join(directory, `${name}.jsonl`)))
    .filter((record) => record.method === 'tools/call');
  const sum = (key) => tallies.reduce((total, count) => total + count[key], 0);
  return {
    surface: 'three replicas, restarted one by one',
    round: `${CLIENTS} clients in loops`,
    inFlight,
    calls: sum('reports') + sum('searches') + sum('cancelled') + sum('lost'),
    reports: sum('reports') + sum('searches'),
    cancelled: sum('cancelled'),
    lost: sum('lost'),
    records: records.filter((record) => record.client?.name?.startsWith('roll-client-')).length,
    verified: names.every((name) => verified(join(directory, `${name}.jsonl`))),
  };
}

const rows = [];
for (const round of ROUNDS) rows.push(await httpRound(round));
for (const round of ROUNDS) rows.push(await stdioRound(round));
rows.push(await rollingRestart());
console.log(
  '| surface | calls | in flight at SIGTERM | answered with a result | answered "cancelled: shutting down" | lost | tools/call records | trail verifies |',
);
console.log('|---|---|---:|---:|---:|---:|---:|---|');
for (const row of rows)
  console.log(
    `| ${row.surface} | ${row.round} | ${row.inFlight} | ${row.reports} | ${row.cancelled} | ${row.lost} | ${row.records}${row.calls ? ` (of ${row.calls} calls)` : ''} | ${row.verified ? 'yes' : 'NO'} |`,
  );
