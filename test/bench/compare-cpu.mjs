// Server CPU per request of two builds of the bench host side by side — a change against the code
// before it — with the floor (bare node:http) as the yardstick: the three servers run at once under
// `taskset -c 0`, wrk (under `taskset -c 1`) drives them in turn, in ABBA order per round, and
// each server's own CPU time is divided by the requests it answered (see abba-cpu.mjs). CPU per
// request does not depend on which process is the bottleneck, so it holds up on a busy machine
// far better than req/s.
//
//   npm run build && BEFORE=/path/to/old/checkout node test/bench/compare-cpu.mjs
//   (the old checkout built too; COMPARE_ROUNDS=4 COMPARE_SECONDS=5 PORT=3994, three ports from it)
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuTicks, luaScript, median, waitUntilReady, wrk } from './abba-cpu.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
if (!process.env.BEFORE) throw new Error('BEFORE=<a built checkout to compare with> is required');
const ROUNDS = Number(process.env.COMPARE_ROUNDS ?? 4);
const SECONDS = Number(process.env.COMPARE_SECONDS ?? 5);
const PORT = Number(process.env.PORT ?? 3994);
const benchApp = (checkout) => join(resolve(checkout), 'dist', 'apps', 'bench', 'src', 'main.js');

const SERVERS = [
  { name: 'floor', entry: join(here, 'floor-server.mjs'), readyPath: undefined },
  { name: 'before', entry: benchApp(process.env.BEFORE), readyPath: '/health/ready' },
  { name: 'after', entry: benchApp(root), readyPath: '/health/ready' },
];
const meta = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
};
const SCENARIOS = {
  'tools/call': {
    headers: { 'MCP-Protocol-Version': '2025-11-25' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } },
  },
  'tools/list': {
    headers: { 'MCP-Protocol-Version': '2025-11-25' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  },
  'tools/call@2026-07-28': {
    headers: { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'add' },
    body: {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'add', arguments: { a: 1, b: 2 }, _meta: meta },
    },
  },
};
/** The floor answers the 2025 methods only. */
const serves = (server, scenario) => server.name !== 'floor' || !scenario.includes('@');

const directory = mkdtempSync(join(tmpdir(), 'compare-cpu-'));
const scripts = Object.fromEntries(
  Object.entries(SCENARIOS).map(([name, request]) => [name, luaScript(directory, name, request)]),
);
const running = SERVERS.map((server, i) => ({
  ...server,
  port: PORT + i,
  process: spawn('taskset', ['-c', '0', process.execPath, server.entry], {
    env: { ...process.env, PORT: String(PORT + i), NODE_ENV: 'production' },
    stdio: 'ignore',
  }),
}));
try {
  for (const server of running) {
    if (server.readyPath) await waitUntilReady(`http://127.0.0.1:${server.port}${server.readyPath}`);
    else await new Promise((done) => setTimeout(done, 500));
    for (const scenario of Object.keys(SCENARIOS).filter((name) => serves(server, name)))
      wrk(`http://127.0.0.1:${server.port}/mcp`, scripts[scenario], 2); // warm-up
  }
  const samples = new Map();
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? running : [...running].reverse();
    for (const scenario of Object.keys(SCENARIOS)) {
      for (const server of order.filter((candidate) => serves(candidate, scenario))) {
        const before = cpuTicks(server.process.pid);
        const { requests, rps } = wrk(`http://127.0.0.1:${server.port}/mcp`, scripts[scenario], SECONDS);
        const cpu = ((cpuTicks(server.process.pid) - before) * 10_000) / requests;
        const key = `${server.name} ${scenario}`;
        samples.set(key, [...(samples.get(key) ?? []), cpu]);
        console.log(
          `round ${round + 1}: ${key}: ${cpu.toFixed(1)} µs of server CPU per request, ${rps.toFixed(0)} req/s`,
        );
      }
    }
  }
  console.log('\n| scenario | floor µs | before µs | after µs | after / before | floor / before | floor / after |');
  console.log('|---|---|---|---|---|---|---|');
  for (const scenario of Object.keys(SCENARIOS)) {
    const of = (name) => samples.get(`${name} ${scenario}`) && median(samples.get(`${name} ${scenario}`));
    const [floor, before, after] = ['floor', 'before', 'after'].map(of);
    const ratio = (a, b) => (a && b ? (a / b).toFixed(2) : '–');
    console.log(
      `| ${scenario} | ${floor?.toFixed(1) ?? '–'} | ${before.toFixed(1)} | ${after.toFixed(1)} | ${ratio(after, before)} | ${ratio(floor, before)} | ${ratio(floor, after)} |`,
    );
  }
} finally {
  for (const server of running) server.process.kill();
}
