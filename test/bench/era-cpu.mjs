// Server CPU per request of a stateless 2025-11-25 and a 2026-07-28 `tools/call`, on one running
// bench host: the two requests alternate in ABBA order (so warm-up and drift fall on both), wrk
// drives each under `taskset -c 1` while the server runs under `taskset -c 0`, and the server's
// own CPU time (utime + stime from /proc) is divided by the requests wrk completed. Unlike req/s,
// this does not depend on which of the two processes is the bottleneck. Linux only.
//
//   npm run build && node test/bench/era-cpu.mjs     (ERA_ROUNDS=6 ERA_SECONDS=8 PORT=3993)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const port = Number(process.env.PORT ?? 3993);
const rounds = Number(process.env.ERA_ROUNDS ?? 6);
const seconds = Number(process.env.ERA_SECONDS ?? 8);
const url = `http://127.0.0.1:${port}/mcp`;

const call = { name: 'add', arguments: { a: 1, b: 2 } };
const REQUESTS = {
  '2025-11-25': {
    headers: { 'MCP-Protocol-Version': '2025-11-25' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: call },
  },
  '2026-07-28': {
    headers: { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': 'add' },
    body: {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        ...call,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
        },
      },
    },
  },
};
// The 2025 request grown to the 2026 one's size: the same `_meta` under another namespace of the
// same length and two headers as long as `Mcp-Method` / `Mcp-Name`, all of which a 2025 request
// ignores. Against it, what remains of the difference is the 2026 handling itself.
const padded = JSON.parse(
  JSON.stringify(REQUESTS['2026-07-28']).replaceAll('io.modelcontextprotocol/', 'io.padded.same.length00/'),
);
REQUESTS['2025-11-25 padded'] = {
  headers: { 'MCP-Protocol-Version': '2025-11-25', 'X-P-Method': 'tools/call', 'X-P-Name': 'add' },
  body: padded.body,
};

const directory = mkdtempSync(join(tmpdir(), 'era-cpu-'));
const scripts = Object.fromEntries(
  Object.entries(REQUESTS).map(([revision, { headers, body }]) => {
    const all = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers };
    const lines = [
      'wrk.method = "POST"',
      `wrk.body = [==[${JSON.stringify(body)}]==]`,
      ...Object.entries(all).map(([name, value]) => `wrk.headers[${JSON.stringify(name)}] = ${JSON.stringify(value)}`),
    ];
    const file = join(directory, `${revision}.lua`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    return [revision, file];
  }),
);

/** utime + stime of a process, in clock ticks (1/100 s). */
function cpuTicks(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

function wrk(revision, duration) {
  const run = spawnSync('taskset', ['-c', '1', 'wrk', '-t1', '-c30', `-d${duration}s`, '-s', scripts[revision], url], {
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`wrk failed: ${run.stderr || run.stdout}`);
  if (/Non-2xx/.test(run.stdout)) throw new Error(`non-2xx answers for ${revision}:\n${run.stdout}`);
  return Number(/(\d+) requests in/.exec(run.stdout)[1]);
}

async function waitUntilReady() {
  for (let attempt = 0; attempt < 100; attempt++) {
    const ready = await fetch(`http://127.0.0.1:${port}/health/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the bench host did not become ready on port ${port}`);
}

const server = spawn('taskset', ['-c', '0', process.execPath, join(root, 'dist', 'apps', 'bench', 'src', 'main.js')], {
  env: { ...process.env, PORT: String(port) },
  stdio: 'ignore',
});
try {
  await waitUntilReady();
  // taskset execs node, so the child's pid is the server's.
  for (const revision of Object.keys(REQUESTS)) wrk(revision, 3); // warm-up
  const order = Object.keys(REQUESTS);
  const samples = Object.fromEntries(order.map((revision) => [revision, []]));
  for (let round = 0; round < rounds; round++) {
    for (const revision of round % 2 === 0 ? order : [...order].reverse()) {
      const before = cpuTicks(server.pid);
      const requests = wrk(revision, seconds);
      const microseconds = ((cpuTicks(server.pid) - before) * 10_000) / requests;
      samples[revision].push(microseconds);
      console.log(`${revision}: ${microseconds.toFixed(1)} µs of server CPU per request (${requests} requests)`);
    }
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const newer = median(samples['2026-07-28']);
  for (const revision of order) {
    const cost = median(samples[revision]);
    const against =
      revision === '2026-07-28'
        ? ''
        : `; 2026-07-28 costs ${(newer / cost).toFixed(3)}× (${(newer - cost).toFixed(1)} µs more)`;
    console.log(`median ${revision}: ${cost.toFixed(1)} µs${against}`);
  }
} finally {
  server.kill();
}
