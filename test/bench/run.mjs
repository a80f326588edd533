// `npm run bench`: the floor (bare node:http), the official SDK v1 stateful server, the official
// SDK v2 server (createMcpHandler), the peers users compare with (@rekog/mcp-nest, fastmcp) and
// ours (apps/bench, plain, with API key + throttling, with the audit trail, with both), measured
// with wrk in interleaved rounds. 2025-11-25 requests go to every server;
// stateless 2026-07-28 requests (tools/call and tools/list) to ours and the SDK v2 server, which
// serve both revisions on one endpoint. Each server runs pinned to core 0, wrk
// pinned to core 1 (one thread, 30 connections). Every answer kind is checked once with fetch
// before it is measured, and the wrk script itself counts non-2xx statuses and unexpected bodies:
// any such response fails the run.
//
// Env: BENCH_SECONDS   seconds per measurement (default 10; each is preceded by a warm-up)
//      BENCH_ROUNDS    interleaved rounds (default 3, or 1 with BENCH_ONLY)
//      BENCH_ONLY      comma-separated subset of servers: floor,sdk,sdk2,mcpnest,fastmcp,ours,secure,
//                      policies0,policies10,policies100,callerPolicies10,guardrails,audit,secureAudit,
//                      secureAuditStateful
//                      (e.g. BENCH_ONLY=ours,audit)
//      BENCH_SCENARIOS comma-separated subset of scenarios (e.g. tools/call,tools/list,tools/call@2026-07-28)
//      BENCH_WRITE=0   do not rewrite the results section of docs/benchmarks.md
//      BENCH_BEFORE    another checkout's built bench app (…/dist/apps/bench/src/main.js): served as the
//                      server `before`, stateless like `ours`, to compare a change in one interleaved run
//                      (e.g. BENCH_BEFORE=/tmp/old/dist/apps/bench/src/main.js BENCH_ONLY=floor,before,ours)
//
// Other processes on these two cores (a test run, a build) skew the figures badly, so each
// measurement waits for a quiet machine, is repeated (up to 3 attempts) if other processes used
// more than QUIET_LOAD % of a core meanwhile, and is flagged in the table if it never was quiet.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { ensurePeers } from './peers/install.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (process.env.BENCH_ONLY ? 1 : 3));
const WARMUP_SECONDS = Math.min(2, SECONDS);
const CONNECTIONS = 30;
const QUIET_LOAD = 10; // % of one core that other processes may use during a measurement
const ATTEMPTS = 3;
const PROTOCOL_VERSION = '2025-11-25';
const MODERN = '2026-07-28';
const MCP_HEADERS = {
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
  'MCP-Protocol-Version': PROTOCOL_VERSION,
};

/** What a corporate deployment runs: every call authenticated, throttled and audited. */
const SECURE_AUDIT = {
  id: 'secureAudit',
  label: 'nest-mcp-host + API key + throttling + audit trail',
  entry: join(root, 'dist', 'apps', 'bench', 'src', 'main.js'),
  stateful: false,
  readyPath: '/health/ready',
  env: { BENCH_SECURE: '1' },
  headers: { 'X-API-Key': 'bench-key-0123456789' },
  auditTrail: true,
};
const ALL_SERVERS = [
  { id: 'floor', label: 'bare node:http (floor)', entry: join(here, 'floor-server.mjs'), stateful: false },
  { id: 'sdk', label: 'official SDK v1, stateful', entry: join(here, 'sdk-server.mjs'), stateful: true },
  {
    id: 'sdk2',
    label: 'official SDK v2, createMcpHandler (stateless)',
    entry: join(here, 'sdk2-server.mjs'),
    stateful: false,
    revisions: [PROTOCOL_VERSION, MODERN],
  },
  {
    id: 'mcpnest',
    label: '@rekog/mcp-nest 2 (stateless, JSON)',
    entry: join(here, 'peers', 'mcp-nest-server.mjs'),
    peer: true,
    stateful: false,
    revisions: [PROTOCOL_VERSION, MODERN],
  },
  {
    id: 'fastmcp',
    label: 'fastmcp 4 (stateless, JSON)',
    entry: join(here, 'peers', 'fastmcp-server.mjs'),
    peer: true,
    stateful: false,
  },
  {
    id: 'ours',
    label: 'nest-mcp-host (apps/bench, stateless)',
    entry: join(root, 'dist', 'apps', 'bench', 'src', 'main.js'),
    stateful: false,
    readyPath: '/health/ready',
    revisions: [PROTOCOL_VERSION, MODERN],
  },
  {
    id: 'secure',
    label: 'nest-mcp-host + API key + throttling',
    entry: join(root, 'dist', 'apps', 'bench', 'src', 'main.js'),
    stateful: false,
    readyPath: '/health/ready',
    env: { BENCH_SECURE: '1' },
    headers: { 'X-API-Key': 'bench-key-0123456789' },
  },
  // Governance (docs/governance.md): 0, 10 and 100 policies, each governing every tool and
  // reading the arguments (the worst case: every condition evaluated on every call), and the
  // guardrails (every built-in detector on arguments and results) with 10 policies.
  ...[0, 10, 100].map((count) => ({
    id: `policies${count}`,
    label: `nest-mcp-host + governance, ${count} policies`,
    entry: join(root, 'dist', 'apps', 'bench', 'src', 'main.js'),
    stateful: false,
    readyPath: '/health/ready',
    env: { BENCH_POLICIES: String(count) },
  })),
  {
    // Ten policies on who calls which entry (no arguments read): decided once per caller and entry.
    id: 'callerPolicies10',
    label: 'nest-mcp-host + governance, 10 policies on the caller',
    entry: join(root, 'dist', 'apps', 'bench', 'src', 'main.js'),
    stateful: false,
    readyPath: '/health/ready',
    env: { BENCH_POLICIES: '10', BENCH_POLICIES_ON: 'caller' },
  },
  {
    id: 'guardrails',
    label: 'nest-mcp-host + governance, 10 policies + guardrails',
    entry: join(root, 'dist', 'apps', 'bench', 'src', 'main.js'),
    stateful: false,
    readyPath: '/health/ready',
    env: { BENCH_POLICIES: '10', BENCH_GUARDRAILS: '1' },
  },
  {
    id: 'audit',
    label: 'nest-mcp-host + audit trail (JSONL sink)',
    entry: join(root, 'dist', 'apps', 'bench', 'src', 'main.js'),
    stateful: false,
    readyPath: '/health/ready',
    // A fresh trail per start (set in startServer), checked after the run.
    auditTrail: true,
  },
  SECURE_AUDIT,
  {
    // The same in 2025-11-25's stateful mode: one session per run, opened before it is measured.
    ...SECURE_AUDIT,
    id: 'secureAuditStateful',
    label: `${SECURE_AUDIT.label}, stateful`,
    stateful: true,
    env: { ...SECURE_AUDIT.env, BENCH_STATEFUL: '1' },
  },
];
if (process.env.BENCH_BEFORE)
  ALL_SERVERS.push({
    id: 'before',
    label: `nest-mcp-host before (${process.env.BENCH_BEFORE}, stateless)`,
    entry: process.env.BENCH_BEFORE,
    stateful: false,
    readyPath: '/health/ready',
    revisions: [PROTOCOL_VERSION, MODERN],
  });

/**
 * A stateless 2026-07-28 request: the revision, the client's capabilities and identity in
 * `params._meta`, and the standard headers (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`).
 */
function modern(method, params = {}, name) {
  return {
    revision: MODERN,
    headers: { 'MCP-Protocol-Version': MODERN, 'Mcp-Method': method, ...(name && { 'Mcp-Name': name }) },
    body: {
      jsonrpc: '2.0',
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
        },
      },
    },
  };
}

// `expect` is a substring every measured body must contain (checked by the wrk script);
// `check` is the full check of the one answer fetched before the measurement. A scenario is
// measured on the servers that serve its `revision` (2025-11-25 unless given).
const ALL_SCENARIOS = [
  {
    id: 'tools/call',
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } },
    expect: '"text":"3"',
    check: (result) => result?.content?.[0]?.text === '3' && !result.isError,
  },
  {
    id: 'tools/list',
    body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    expect: '"name":"noop_99"',
    check: (result) => result?.tools?.length === 101 && result.nextCursor === undefined,
  },
  {
    id: 'prompts/list',
    body: { jsonrpc: '2.0', id: 1, method: 'prompts/list' },
    expect: '"name":"prompt_99"',
    check: (result) => result?.prompts?.length === 100 && result.nextCursor === undefined,
  },
  {
    id: 'resources/list',
    body: { jsonrpc: '2.0', id: 1, method: 'resources/list' },
    expect: '"uri":"bench://items/99"',
    check: (result) => result?.resources?.length === 100 && result.nextCursor === undefined,
  },
  {
    id: `tools/call@${MODERN}`,
    ...modern('tools/call', { name: 'add', arguments: { a: 1, b: 2 } }, 'add'),
    expect: '"text":"3"',
    check: (result) => result?.resultType === 'complete' && result.content?.[0]?.text === '3' && !result.isError,
  },
  {
    id: `tools/list@${MODERN}`,
    ...modern('tools/list'),
    expect: '"name":"noop_99"',
    check: (result) =>
      result?.resultType === 'complete' && result.tools?.length === 101 && result.nextCursor === undefined,
  },
];

/** Whether `server` is measured on `scenario` (it serves the scenario's revision). */
const serves = (server, scenario) =>
  (server.revisions ?? [PROTOCOL_VERSION]).includes(scenario.revision ?? PROTOCOL_VERSION);

const SERVERS = subset(ALL_SERVERS, process.env.BENCH_ONLY, 'BENCH_ONLY');
/** The bench app with options on (security, audit, governance): compared with the plain one. */
const isVariantOfOurs = (server) =>
  server.id !== 'ours' && server.entry === ALL_SERVERS.find((candidate) => candidate.id === 'ours').entry;
if (SERVERS.some((server) => server.peer)) ensurePeers();
const SCENARIOS = subset(ALL_SCENARIOS, process.env.BENCH_SCENARIOS, 'BENCH_SCENARIOS');

function subset(items, list, variable) {
  if (!list) return items;
  const ids = list.split(',').map((id) => id.trim());
  const unknown = ids.filter((id) => !items.some((item) => item.id === id));
  if (unknown.length > 0)
    throw new Error(`${variable}: unknown ${unknown.join(', ')} (known: ${items.map((i) => i.id).join(', ')})`);
  return items.filter((item) => ids.includes(item.id));
}

// ---------------------------------------------------------------------------------------------
// Tools: wrk, ports, MCP requests

function wrkVersion() {
  const probe = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  return probe.error ? undefined : (/^wrk \S+/.exec(probe.stdout)?.[0] ?? 'wrk');
}

function ensureWrk() {
  if (wrkVersion()) return;
  if (process.getuid?.() !== 0) {
    throw new Error('wrk is not installed: run `sudo apt-get install -y wrk` (Debian/Ubuntu) and try again');
  }
  console.log('wrk is not installed; installing it with apt-get…');
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
  execFileSync('apt-get', ['install', '-y', '-qq', 'wrk'], { stdio: 'inherit' });
  if (!wrkVersion()) throw new Error('apt-get install wrk did not provide a working wrk');
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function portAccepts(port) {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * One MCP POST; answers `{ status, headers, text, message }` where message is the JSON-RPC reply
 * (JSON or SSE). `Connection: close` keeps fetch from reusing a pooled socket that the server
 * may have timed out while wrk was running.
 */
async function mcpPost(url, body, headers = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...MCP_HEADERS, ...headers, Connection: 'close' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let message;
  if (text && response.headers.get('content-type')?.startsWith('text/event-stream')) {
    message = text
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => JSON.parse(line.slice(5)))
      .find((candidate) => candidate.id !== undefined);
  } else if (text) {
    message = JSON.parse(text);
  }
  return { status: response.status, headers: response.headers, text, message };
}

// ---------------------------------------------------------------------------------------------
// Servers

async function startServer(server) {
  const port = await freePort();
  const auditFile = server.auditTrail
    ? join(mkdtempSync(join(tmpdir(), 'mcp-bench-audit-')), 'audit.jsonl')
    : undefined;
  const child = spawn('taskset', ['-c', '0', process.execPath, server.entry], {
    env: { ...process.env, PORT: String(port), ...server.env, ...(auditFile && { BENCH_AUDIT_FILE: auditFile }) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  const running = {
    server,
    child,
    url: `http://127.0.0.1:${port}/mcp`,
    headers: { ...server.headers },
    stderr: () => stderr,
    auditFile,
  };
  child.once('exit', (code, signal) => (running.exited = { code, signal }));

  try {
    await waitUntilReady(running, port);
    if (server.stateful) Object.assign(running.headers, await openSession(running.url, running.headers));
  } catch (error) {
    await stopServer(running);
    throw error;
  }
  return running;
}

async function waitUntilReady(running, port) {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    assertAlive(running);
    if (await portAccepts(port)) {
      if (!running.server.readyPath) return;
      const response = await fetch(`http://127.0.0.1:${port}${running.server.readyPath}`, {
        headers: { Connection: 'close' },
      }).catch(() => undefined);
      await response?.arrayBuffer();
      if (response?.status === 200) return;
    }
    await sleep(100);
  }
  throw new Error(`${running.server.id} did not become ready within 20 s\n${running.stderr()}`);
}

/** initialize + notifications/initialized; answers the headers every later request must carry. */
async function openSession(url, serverHeaders) {
  const initialize = await mcpPost(
    url,
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } },
    },
    serverHeaders,
  );
  const sessionId = initialize.headers.get('mcp-session-id');
  if (initialize.status !== 200 || !initialize.message?.result || !sessionId) {
    throw new Error(
      `initialize failed: HTTP ${initialize.status}, session id ${sessionId}, body ${initialize.text.slice(0, 300)}`,
    );
  }
  const headers = { 'Mcp-Session-Id': sessionId };
  const initialized = await mcpPost(
    url,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { ...serverHeaders, ...headers },
  );
  if (initialized.status !== 202)
    throw new Error(`notifications/initialized answered HTTP ${initialized.status}: ${initialized.text.slice(0, 300)}`);
  return headers;
}

function assertAlive(running) {
  if (running.exited) {
    const { code, signal } = running.exited;
    throw new Error(`${running.server.id} exited (code ${code}, signal ${signal})\n${running.stderr()}`);
  }
}

async function stopServer(running) {
  if (running.exited) return;
  const exited = new Promise((resolve) => running.child.once('exit', resolve));
  running.child.kill('SIGTERM');
  const timer = setTimeout(() => running.child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/** The audited variant must have written an intact trail of every call it served. */
function checkAuditTrail(file) {
  const verify = spawnSync(process.execPath, [join(root, 'dist', 'apps', 'audit-verify', 'src', 'main.js'), file], {
    encoding: 'utf8',
  });
  if (verify.status !== 0)
    throw new Error(`audit trail of the audited run does not verify: ${verify.stdout}${verify.stderr}`);
  console.log(`  audit trail: ${verify.stdout.trim()}`);
  rmSync(dirname(file), { recursive: true, force: true });
}

// ---------------------------------------------------------------------------------------------
// One measurement

/** Fetches one answer of the scenario and fails unless it is a 2xx with the expected result. */
async function verifyAnswer(running, scenario) {
  const headers = { ...scenario.headers, ...running.headers };
  const { status, text, message } = await mcpPost(running.url, scenario.body, headers);
  const where = `${running.server.id} ${scenario.id}`;
  if (status < 200 || status > 299) throw new Error(`${where}: HTTP ${status}: ${text.slice(0, 500)}`);
  if (message?.id !== scenario.body.id || !scenario.check(message.result)) {
    throw new Error(`${where}: unexpected answer: ${text.slice(0, 500)}`);
  }
  if (!text.includes(scenario.expect))
    throw new Error(`${where}: the answer lacks ${scenario.expect}: ${text.slice(0, 500)}`);
  return Buffer.byteLength(text);
}

/** A wrk script sending the scenario's request and counting non-2xx statuses and unexpected bodies. */
function writeLuaScript(directory, running, scenario) {
  const quote = (value) => `[==[${value}]==]`;
  const headers = { ...MCP_HEADERS, ...scenario.headers, ...running.headers };
  const script = `-- ${running.server.id} ${scenario.id} (generated by test/bench/run.mjs)
wrk.method = "POST"
wrk.body = ${quote(JSON.stringify(scenario.body))}
${Object.entries(headers)
  .map(([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`)
  .join('\n')}

local expected = ${quote(scenario.expect)}
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  non2xx = 0
  unexpected = 0
end

function response(status, headers, body)
  if status < 200 or status > 299 then
    non2xx = non2xx + 1
  elseif not string.find(body, expected, 1, true) then
    unexpected = unexpected + 1
  end
end

function done(summary, latency, requests)
  local bad, wrong = 0, 0
  for _, thread in ipairs(threads) do
    bad = bad + thread:get("non2xx")
    wrong = wrong + thread:get("unexpected")
  end
  io.write(string.format("bench-check non2xx=%d unexpected=%d\\n", bad, wrong))
end
`;
  const file = join(directory, `${running.server.id}-${scenario.id.replace(/[^\w.-]/g, '-')}.lua`);
  writeFileSync(file, script);
  return file;
}

/**
 * CPU time (in clock ticks) the whole machine, this process with its reaped children (wrk) and
 * the server have used so far, so that a measurement can tell how much CPU other processes took
 * meanwhile. Linux only; undefined elsewhere.
 */
function cpuTicks(serverPid) {
  try {
    const processTicks = (pid) => {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      // utime, stime, cutime, cstime are fields 14-17 of stat, i.e. 11-14 after the command name
      return fields.slice(11, 15).reduce((sum, value) => sum + Number(value), 0);
    };
    const [user, nice, system] = readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]
      .trim()
      .split(/\s+/)
      .slice(1, 4)
      .map(Number);
    return { machine: user + nice + system, ours: processTicks('self') + processTicks(serverPid) };
  } catch {
    return undefined;
  }
}

/** Share of one core (in %) used by processes other than the server, wrk and this script. */
function otherLoad(before, after, seconds) {
  if (!before || !after) return undefined;
  const ticksPerSecond = 100; // USER_HZ on Linux
  const foreign = after.machine - before.machine - (after.ours - before.ours);
  return Math.max(0, (100 * foreign) / (ticksPerSecond * seconds));
}

function toMs(value, unit) {
  return Number(value) * { us: 0.001, ms: 1, s: 1000 }[unit];
}

/** Runs wrk to completion and answers its exit code and output (asynchronously, so that a server exit is seen meanwhile). */
function spawnWrk(args) {
  return new Promise((resolve, reject) => {
    const wrk = spawn('taskset', ['-c', '1', 'wrk', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    wrk.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk));
    wrk.stderr.setEncoding('utf8').on('data', (chunk) => (out += chunk));
    wrk.once('error', reject);
    wrk.once('close', (code) => resolve({ code, out }));
  });
}

async function runWrk(running, scenario, script, seconds) {
  const before = cpuTicks(running.child.pid);
  const { code, out } = await spawnWrk([
    '-t1',
    `-c${CONNECTIONS}`,
    `-d${seconds}s`,
    '--latency',
    '-s',
    script,
    running.url,
  ]);
  const load = otherLoad(before, cpuTicks(running.child.pid), seconds);
  const where = `${running.server.id} ${scenario.id}`;
  await sleep(100); // lets the exit event of a server that died during the run arrive
  assertAlive(running);
  if (code !== 0) throw new Error(`${where}: wrk exited with code ${code}:\n${out}`);
  const check = /bench-check non2xx=(\d+) unexpected=(\d+)/.exec(out);
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const p50 = /\s50%\s+([\d.]+)(us|ms|s)/.exec(out);
  const p99 = /\s99%\s+([\d.]+)(us|ms|s)/.exec(out);
  if (!check || !rps || !p50 || !p99) throw new Error(`${where}: cannot read wrk's output:\n${out}`);

  const [non2xx, unexpected] = [Number(check[1]), Number(check[2])];
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/
    .exec(out)
    ?.slice(1)
    .map(Number) ?? [0, 0, 0, 0];
  const [connectErrors, readErrors, writeErrors, timeouts] = socket;
  if (non2xx > 0) throw new Error(`${where}: ${non2xx} non-2xx responses during the run\n${out}`);
  if (unexpected > 0) throw new Error(`${where}: ${unexpected} 2xx responses without ${scenario.expect}\n${out}`);
  if (connectErrors + readErrors + writeErrors > 0) throw new Error(`${where}: socket errors during the run\n${out}`);
  return { rps: Number(rps[1]), p50: toMs(p50[1], p50[2]), p99: toMs(p99[1], p99[2]), timeouts, otherLoad: load };
}

/** Waits (up to 60 s) until other processes use less than QUIET_LOAD % of a core for a second. */
async function waitForQuiet(running) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const before = cpuTicks(running.child.pid);
    await sleep(1000);
    const load = otherLoad(before, cpuTicks(running.child.pid), 1);
    if (load === undefined || load < QUIET_LOAD) return;
  }
}

/** Warm-up, then the measurement, repeated while other processes disturb it; the least disturbed attempt. */
async function measure(running, scenario, script) {
  await runWrk(running, scenario, script, WARMUP_SECONDS);
  let best;
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    await waitForQuiet(running);
    const result = await runWrk(running, scenario, script, SECONDS);
    if (!best || result.otherLoad < best.otherLoad) best = result;
    if (!(result.otherLoad >= QUIET_LOAD)) break;
    console.log(
      `  (${running.server.id} ${scenario.id}: other processes used ${result.otherLoad.toFixed(0)}% of a core meanwhile${attempt < ATTEMPTS ? '; measuring again' : ''})`,
    );
  }
  return { ...best, disturbed: best.otherLoad >= QUIET_LOAD };
}

// ---------------------------------------------------------------------------------------------
// Report

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

function summaryTable(samples) {
  const rows = [];
  for (const scenario of SCENARIOS) {
    // The floor answers 2025-11-25 requests only: a 2026-07-28 row is set against its row of the same method.
    const floor = samples.get(`floor ${scenario.id.split('@')[0]}`);
    const floorRps = floor && median(floor.map((sample) => sample.rps));
    const plain = samples.get(`ours ${scenario.id}`);
    const oursRps = plain && median(plain.map((sample) => sample.rps));
    for (const server of SERVERS.filter((candidate) => serves(candidate, scenario))) {
      const runs = samples.get(`${server.id} ${scenario.id}`);
      const rps = median(runs.map((sample) => sample.rps));
      const timeouts = runs.reduce((sum, sample) => sum + sample.timeouts, 0);
      const disturbed = runs.filter((sample) => sample.disturbed).length;
      rows.push([
        server.label,
        scenario.id,
        `${rps.toFixed(0)}${timeouts ? ` (${timeouts} timeouts)` : ''}${disturbed ? ` (${disturbed} of ${runs.length} disturbed)` : ''}`,
        median(runs.map((sample) => sample.p50)).toFixed(2),
        median(runs.map((sample) => sample.p99)).toFixed(2),
        floorRps ? `${(rps / floorRps).toFixed(2)}×` : '–',
        oursRps && isVariantOfOurs(server) ? `${((100 * rps) / oursRps).toFixed(0)} %` : '–',
      ]);
    }
  }
  return [
    '| server | scenario | req/s (median) | p50 ms | p99 ms | ratio to floor | of plain ours |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...rows.map((cells) => `| ${cells.join(' | ')} |`),
  ].join('\n');
}

function invocation() {
  const variables = Object.entries(process.env)
    .filter(([name]) => name.startsWith('BENCH_') && name !== 'BENCH_WRITE')
    .map(([name, value]) => `${name}=${value}`)
    .sort();
  const command = process.env.npm_lifecycle_event === 'bench' ? 'npm run bench' : 'node test/bench/run.mjs';
  return [...variables, command].join(' ');
}

function writeResults(table) {
  const file = join(root, 'docs', 'benchmarks.md');
  const marker = '<!-- results -->';
  const doc = readFileSync(file, 'utf8');
  const intro = doc.includes(marker) ? doc.slice(0, doc.indexOf(marker)) : `${doc.trimEnd()}\n\n`;
  const machine = `${availableParallelism()} cores (nproc), ${cpus()[0]?.model ?? 'unknown CPU'}`;
  const results = `${marker}
## Results

- Command: \`${invocation()}\`
- Date: ${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}
- Machine: ${machine}; Node ${process.version}; ${wrkVersion()}
- Method: ${ROUNDS} interleaved round(s), each server measured for ${SECONDS} s per scenario after a ${WARMUP_SECONDS} s warm-up;
  \`taskset -c 1 wrk -t1 -c${CONNECTIONS} -d${SECONDS}s --latency -s <scenario>.lua\`, server under \`taskset -c 0\`; medians.
  A measurement during which other processes used ≥ ${QUIET_LOAD} % of a core is repeated, and flagged "disturbed" if it never was quiet.

${table}
`;
  writeFileSync(file, intro + results);
  console.log('\nwritten to docs/benchmarks.md');
}

// ---------------------------------------------------------------------------------------------

async function main() {
  ensureWrk();
  const scripts = mkdtempSync(join(tmpdir(), 'mcp-bench-'));
  const samples = new Map();
  let current;
  const interrupt = () => {
    current?.child.kill('SIGTERM');
    process.exit(130);
  };
  process.once('SIGINT', interrupt).once('SIGTERM', interrupt);

  console.log(
    `${SERVERS.map((s) => s.id).join(', ')} × ${SCENARIOS.map((s) => s.id).join(', ')}: ${ROUNDS} round(s) of ${SECONDS} s (+${WARMUP_SECONDS} s warm-up)`,
  );
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const server of SERVERS) {
        current = await startServer(server);
        try {
          for (const scenario of SCENARIOS.filter((candidate) => serves(server, candidate))) {
            const bytes = await verifyAnswer(current, scenario);
            const script = writeLuaScript(scripts, current, scenario);
            const result = await measure(current, scenario, script);
            const key = `${server.id} ${scenario.id}`;
            samples.set(key, [...(samples.get(key) ?? []), result]);
            console.log(
              `round ${round}: ${server.id.padEnd(6)} ${scenario.id.padEnd(25)} ${result.rps.toFixed(0).padStart(7)} req/s` +
                `  p50 ${result.p50.toFixed(2)} ms  p99 ${result.p99.toFixed(2)} ms  (${bytes} B answers)` +
                (result.otherLoad === undefined ? '' : `  other load ${result.otherLoad.toFixed(0)}%`) +
                (result.timeouts ? `  ${result.timeouts} timeouts` : ''),
            );
          }
        } finally {
          await stopServer(current);
          if (current.auditFile) checkAuditTrail(current.auditFile);
          current = undefined;
        }
      }
    }
  } finally {
    rmSync(scripts, { recursive: true, force: true });
  }

  const table = summaryTable(samples);
  console.log(`\n${table}`);
  const complete = SERVERS.length === ALL_SERVERS.length && SCENARIOS.length === ALL_SCENARIOS.length;
  if (process.env.BENCH_WRITE !== '0' && complete) writeResults(table);
}

main().catch((error) => {
  console.error(`\nBENCHMARK FAILED: ${error.message}${error.cause ? ` (${error.cause.message ?? error.cause})` : ''}`);
  process.exitCode = 1;
});
