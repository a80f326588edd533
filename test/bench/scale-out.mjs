// What sharing 2025 sessions through Redis costs, and what a second replica gives, in one run.
// Bench hosts (apps/bench) in stateful mode, a private redis-server and HAProxy (round-robin):
//   1. one replica with sessions in process memory against one sharing them through Redis
//      (`cluster` option): wrk posts `tools/call add` on one open session, 30 connections, in
//      ABBA rounds; req/s and CPU per request of the host (and of Redis);
//   2. through HAProxy, one replica against two (both sharing through Redis), same session.
//
//   npm run build && node test/bench/scale-out.mjs     (SCALE_ROUNDS=4 SCALE_SECONDS=6)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, startHaproxy } from './bench-processes.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const entry = join(root, 'dist', 'apps', 'bench', 'src', 'main.js');
const ROUNDS = Number(process.env.SCALE_ROUNDS ?? 4);
const SECONDS = Number(process.env.SCALE_SECONDS ?? 6);
const directory = mkdtempSync(join(tmpdir(), 'scale-out-bench-'));

const cpuTicks = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
};
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check, what) {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await check().catch(() => false)) return;
    await sleep(100);
  }
  throw new Error(`${what} not ready`);
}

function host(port, env) {
  const child = spawn(process.execPath, [entry], {
    env: { ...process.env, BENCH_STATEFUL: '1', PORT: String(port), ...env },
    stdio: 'ignore',
  });
  return {
    child,
    port,
    ready: () => until(() => fetch(`http://127.0.0.1:${port}/health/ready`).then((r) => r.ok), `host ${port}`),
  };
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Opens a session on `url`; its id. */
async function openSession(url) {
  const init = await fetch(url, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    }),
  });
  const session = init.headers.get('mcp-session-id');
  await init.text();
  const headers = { ...HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
  await (
    await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    })
  ).text();
  const check = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'add', arguments: { a: 2, b: 3 } },
    }),
  }).then((r) => r.json());
  if (check?.result?.content?.[0]?.text !== '5') throw new Error(`${url}: ${JSON.stringify(check)}`);
  return session;
}

function script(name, session) {
  const file = join(directory, `${name}.lua`);
  writeFileSync(
    file,
    [
      'wrk.method = "POST"',
      `wrk.body = [==[${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } })}]==]`,
      'wrk.headers["Content-Type"] = "application/json"',
      'wrk.headers["Accept"] = "application/json, text/event-stream"',
      'wrk.headers["MCP-Protocol-Version"] = "2025-11-25"',
      `wrk.headers["Mcp-Session-Id"] = "${session}"`,
    ].join('\n'),
  );
  return file;
}

function wrk(url, file) {
  const run = spawnSync('wrk', ['-t1', '-c30', `-d${SECONDS}s`, '-s', file, url], { encoding: 'utf8' });
  if (run.status !== 0 || /Non-2xx/.test(run.stdout)) throw new Error(`wrk failed: ${run.stderr || run.stdout}`);
  return {
    requests: Number(/(\d+) requests in/.exec(run.stdout)[1]),
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(run.stdout)[1]),
  };
}

/** Runs `file` against `url` and measures the CPU per request of `pids`. */
function measure(url, file, pids) {
  const before = pids.map(cpuTicks);
  const load = wrk(url, file);
  const cpu = pids.map((pid, i) => ((cpuTicks(pid) - before[i]) * 10_000) / load.requests);
  return { rps: load.rps, cpu };
}

const processes = [];
try {
  const redisPort = await freePort();
  const redis = spawn(
    'redis-server',
    ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  processes.push(redis);
  const redisUrl = `redis://127.0.0.1:${redisPort}`;
  const [memoryPort, sharedPort, secondPort, proxyOnePort, proxyTwoPort] = await Promise.all(
    [1, 2, 3, 4, 5].map(freePort),
  );
  const memory = host(memoryPort, {});
  const shared = host(sharedPort, { BENCH_REDIS_URL: redisUrl, BENCH_REPLICA: 'r1' });
  const second = host(secondPort, { BENCH_REDIS_URL: redisUrl, BENCH_REPLICA: 'r2' });
  processes.push(memory.child, shared.child, second.child);
  await Promise.all([memory.ready(), shared.ready(), second.ready()]);

  // HAProxy: one in front of r1 alone, one in front of r1 and r2, both round-robin without stickiness.
  const proxy = (port, backends) => {
    const child = startHaproxy(directory, port, backends);
    processes.push(child);
    return child;
  };
  const proxyOne = proxy(proxyOnePort, [sharedPort]);
  const proxyTwo = proxy(proxyTwoPort, [sharedPort, secondPort]);
  await until(() => fetch(`http://127.0.0.1:${proxyOnePort}/health/ready`).then((r) => r.ok), 'proxy');
  await until(() => fetch(`http://127.0.0.1:${proxyTwoPort}/health/ready`).then((r) => r.ok), 'proxy');

  const url = (port) => `http://127.0.0.1:${port}/mcp`;
  const memoryScript = script('memory', await openSession(url(memoryPort)));
  const sharedSession = await openSession(url(sharedPort));
  const sharedScript = script('shared', sharedSession);

  // 1. In-process sessions against Redis-shared ones, one replica each.
  const samples = { memory: [], shared: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of round % 2 === 0 ? ['memory', 'shared'] : ['shared', 'memory']) {
      const sample =
        name === 'memory'
          ? measure(url(memoryPort), memoryScript, [memory.child.pid])
          : measure(url(sharedPort), sharedScript, [shared.child.pid, redis.pid]);
      samples[name].push(sample);
      console.log(
        `${name}: ${sample.rps.toFixed(0)} req/s, CPU per request: host ${sample.cpu[0].toFixed(1)} µs` +
          (sample.cpu[1] !== undefined ? `, redis ${sample.cpu[1].toFixed(1)} µs` : ''),
      );
    }
  }
  const memoryRps = median(samples.memory.map((s) => s.rps));
  const sharedRps = median(samples.shared.map((s) => s.rps));
  console.log(
    `median: in-process sessions ${memoryRps.toFixed(0)} req/s (host ${median(samples.memory.map((s) => s.cpu[0])).toFixed(1)} µs), ` +
      `Redis-shared ${sharedRps.toFixed(0)} req/s (host ${median(samples.shared.map((s) => s.cpu[0])).toFixed(1)} µs, redis ${median(samples.shared.map((s) => s.cpu[1])).toFixed(1)} µs): ` +
      `sharing costs ${(100 - (100 * sharedRps) / memoryRps).toFixed(1)} % of the throughput`,
  );

  // 2. One replica against two behind the proxy, the same shared session.
  const scaled = { one: [], two: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of round % 2 === 0 ? ['one', 'two'] : ['two', 'one']) {
      const port = name === 'one' ? proxyOnePort : proxyTwoPort;
      const pids = [shared.child.pid, second.child.pid, redis.pid, (name === 'one' ? proxyOne : proxyTwo).pid];
      const sample = measure(url(port), sharedScript, pids);
      scaled[name].push(sample);
      console.log(
        `${name} replica(s) behind HAProxy: ${sample.rps.toFixed(0)} req/s, CPU per request: r1 ${sample.cpu[0].toFixed(1)} µs, ` +
          `r2 ${sample.cpu[1].toFixed(1)} µs, redis ${sample.cpu[2].toFixed(1)} µs, haproxy ${sample.cpu[3].toFixed(1)} µs`,
      );
    }
  }
  const one = median(scaled.one.map((s) => s.rps));
  const two = median(scaled.two.map((s) => s.rps));
  console.log(
    `median: behind HAProxy, 1 replica ${one.toFixed(0)} req/s, 2 replicas ${two.toFixed(0)} req/s (${(two / one).toFixed(2)}×)`,
  );
} finally {
  for (const child of processes) child.kill();
}
