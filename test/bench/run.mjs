// `npm run bench`: the floor (bare node:http), the official SDK v1 stateful server and ours,
// measured in one interleaved run with wrk. Server on core 0, wrk on core 1, 30 connections.
// Env: BENCH_SECONDS (per measurement, default 10), BENCH_ROUNDS (default 3),
// BENCH_ONLY=floor,sdk,ours (subset), BENCH_WRITE=0 (do not rewrite docs/benchmarks.md).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ACCEPT = 'application/json, text/event-stream';
const VERSION = '2025-11-25';

const SERVERS = [
  { id: 'floor', label: 'bare node:http (floor)', entry: join(here, 'floor-server.mjs'), stateful: false },
  { id: 'sdk', label: 'official SDK v1, stateful', entry: join(here, 'sdk-server.mjs'), stateful: true },
  { id: 'ours', label: 'nest-mcp-host (apps/bench, stateless)', entry: join(root, 'dist', 'apps', 'bench', 'src', 'main.js'), stateful: false },
].filter((server) => !process.env.BENCH_ONLY || process.env.BENCH_ONLY.split(',').includes(server.id));

const SCENARIOS = [
  { id: 'tools/call', body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } }, check: (r) => r.result?.content?.[0]?.text === '3' },
  { id: 'tools/list', body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, check: (r) => r.result?.tools?.length === 101 },
  { id: 'prompts/list', body: { jsonrpc: '2.0', id: 1, method: 'prompts/list' }, check: (r) => r.result?.prompts?.length === 100 },
  { id: 'resources/list', body: { jsonrpc: '2.0', id: 1, method: 'resources/list' }, check: (r) => r.result?.resources?.length === 100 },
];

function ensureWrk() {
  if (spawnSync('wrk', ['--version']).error === undefined) return;
  if (process.getuid?.() === 0) {
    console.log('installing wrk from Debian…');
    execFileSync('apt-get', ['install', '-y', '-qq', 'wrk'], { stdio: 'inherit' });
    return;
  }
  throw new Error('wrk is missing: sudo apt-get install -y wrk');
}

function freePort() {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** One POST on a fresh connection (a pooled one may have been closed by the server meanwhile). */
function post(url, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': VERSION, ...headers } });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => {
        const payload = text.startsWith('event:') ? text.split('data: ')[1] : text;
        resolve({ headers: res.headers, json: payload ? JSON.parse(payload) : undefined });
      });
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

async function start(server) {
  const port = await freePort();
  const child = spawn('taskset', ['-c', '0', process.execPath, server.entry], { env: { ...process.env, PORT: String(port) }, stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}/mcp`;
  for (let i = 0; i < 100; i++) {
    try {
      await post(url, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
      break;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const headers = {};
  if (server.stateful) {
    const init = await post(url, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
    headers['mcp-session-id'] = init.headers['mcp-session-id'];
    await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  }
  return { child, url, headers };
}

function luaScript(body, headers) {
  const lines = [
    'wrk.method = "POST"',
    'wrk.headers["Content-Type"] = "application/json"',
    `wrk.headers["Accept"] = "${ACCEPT}"`,
    `wrk.headers["MCP-Protocol-Version"] = "${VERSION}"`,
    ...Object.entries(headers).map(([name, value]) => `wrk.headers["${name}"] = "${value}"`),
    `wrk.body = '${JSON.stringify(body)}'`,
  ];
  const file = join(mkdtempSync(join(tmpdir(), 'bench-')), 'request.lua');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

function toMs(value, unit) {
  return Number(value) * ({ us: 0.001, ms: 1, s: 1000 }[unit] ?? 1);
}

function wrk(url, script, seconds) {
  const out = execFileSync('taskset', ['-c', '1', 'wrk', '-t1', '-c30', `-d${seconds}s`, '--latency', '-s', script, url], { encoding: 'utf8' });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)[1]);
  const p50 = /50%\s+([\d.]+)(us|ms|s)/.exec(out);
  const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(out);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const socketErrors = /Socket errors: (.*)/.exec(out)?.[1];
  if (non2xx > 0) throw new Error(`${url}: ${non2xx} non-2xx responses during the run`);
  return { rps, p50: toMs(p50[1], p50[2]), p99: toMs(p99[1], p99[2]), socketErrors };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main() {
  ensureWrk();
  const samples = new Map();
  for (let round = 1; round <= ROUNDS; round++) {
    for (const server of SERVERS) {
      const { child, url, headers } = await start(server);
      try {
        for (const scenario of SCENARIOS) {
          const { json } = await post(url, scenario.body, headers);
          if (!scenario.check(json)) throw new Error(`${server.id} answered ${scenario.id} wrongly: ${JSON.stringify(json).slice(0, 300)}`);
          const script = luaScript(scenario.body, headers);
          wrk(url, script, Math.min(2, SECONDS)); // warm-up (JIT, connection pools)
          const result = wrk(url, script, SECONDS);
          const key = `${server.id} ${scenario.id}`;
          samples.set(key, [...(samples.get(key) ?? []), result]);
          console.log(`round ${round}: ${server.id.padEnd(5)} ${scenario.id.padEnd(14)} ${result.rps.toFixed(0).padStart(7)} req/s  p50 ${result.p50.toFixed(2)} ms  p99 ${result.p99.toFixed(2)} ms`);
        }
      } finally {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
    }
  }

  const rows = [];
  for (const scenario of SCENARIOS) {
    const floor = samples.get(`floor ${scenario.id}`);
    const floorRps = floor ? median(floor.map((s) => s.rps)) : undefined;
    for (const server of SERVERS) {
      const list = samples.get(`${server.id} ${scenario.id}`);
      const rps = median(list.map((s) => s.rps));
      rows.push(`| ${server.label} | ${scenario.id} | ${rps.toFixed(0)} | ${median(list.map((s) => s.p50)).toFixed(2)} | ${median(list.map((s) => s.p99)).toFixed(2)} | ${floorRps ? `${((100 * rps) / floorRps).toFixed(0)} %` : '–'} |`);
    }
  }
  const table = ['| server | request | req/s (median) | p50 ms | p99 ms | of floor |', '|---|---|---:|---:|---:|---:|', ...rows].join('\n');
  console.log(`\n${table}`);

  if (process.env.BENCH_WRITE !== '0' && SERVERS.length === 3) {
    const file = join(root, 'docs', 'benchmarks.md');
    const doc = readFileSync(file, 'utf8');
    const marker = '<!-- results -->';
    const machine = `${cpus().length} cores, ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}`;
    const results = `${marker}\nMeasured ${new Date().toISOString().slice(0, 10)} on ${machine}; ${ROUNDS} interleaved rounds of ${SECONDS} s per measurement, medians.\nCommand: \`BENCH_SECONDS=${SECONDS} BENCH_ROUNDS=${ROUNDS} npm run bench\`\n\n${table}\n`;
    writeFileSync(file, doc.includes(marker) ? doc.slice(0, doc.indexOf(marker)) + results : `${doc}\n${results}`);
    console.log(`\nwritten to docs/benchmarks.md`);
  }
}

await main();
