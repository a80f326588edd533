// Soak: the bench host (stateful 2025 mode, with the audit trail) under a steady mixed load for
// SOAK_MINUTES (default 10) — workers that each open a session, make 20 requests (tools/call,
// tools/list, prompts/get, resources/read, prompts/list in turn), and end it (DELETE) — with
// the host's memory after a full collection every 30 s (SIGWINCH, apps/bench/src/main.ts).
// Memory that only grows with the requests served is a leak; the last samples are compared with
// the first ones after the warm-up.
//   npm run build && SOAK_MINUTES=10 node test/bench/soak.mjs
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from './bench-processes.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const WORKERS = 8;
const SAMPLE_MS = 30_000;
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};
const REQUESTS = [
  (i) => ({ method: 'tools/call', params: { name: 'add', arguments: { a: i, b: 1 } } }),
  () => ({ method: 'tools/list' }),
  (i) => ({ method: 'prompts/get', params: { name: `prompt_${i % 100}`, arguments: { topic: 'soak' } } }),
  (i) => ({ method: 'resources/read', params: { uri: `bench://items/${i % 100}` } }),
  () => ({ method: 'prompts/list' }),
];

const dir = mkdtempSync(join(tmpdir(), 'soak-'));
const port = await freePort();
const url = `http://127.0.0.1:${port}/mcp`;
const host = spawn(process.execPath, ['--expose-gc', join(root, 'dist', 'apps', 'bench', 'src', 'main.js')], {
  env: {
    ...process.env,
    PORT: String(port),
    BENCH_STATEFUL: '1',
    BENCH_MAX_SESSIONS: '1000',
    BENCH_AUDIT_FILE: join(dir, 'audit.jsonl'),
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let out = '';
host.stdout.setEncoding('utf8').on('data', (chunk) => (out = (out + chunk).slice(-10_000)));

async function memory() {
  out = '';
  host.kill('SIGWINCH');
  for (;;) {
    const match = /MEMORY (\{.*\})/.exec(out);
    if (match) return JSON.parse(match[1]);
    await sleep(20);
  }
}

const post = async (body, session) => {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...HEADERS, ...(session && { 'mcp-session-id': session }) },
    body: JSON.stringify({ jsonrpc: '2.0', ...body }),
  });
  await response.text();
  if (response.status >= 400) throw new Error(`${body.method} answered ${response.status}`);
  return response;
};

let served = 0;
let running = true;
async function worker(w) {
  for (let round = 0; running; round++) {
    const opened = await post({
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: `soak-${w}`, version: '1' } },
    });
    const session = opened.headers.get('mcp-session-id');
    await post({ method: 'notifications/initialized' }, session);
    for (let i = 1; i <= 20; i++) {
      await post({ id: i, ...REQUESTS[i % REQUESTS.length](round * 20 + i) }, session);
      served++;
    }
    await fetch(url, { method: 'DELETE', headers: { ...HEADERS, 'mcp-session-id': session } }).then((r) => r.text());
  }
}

try {
  while (!out.includes('bench host on')) {
    if (host.exitCode !== null) throw new Error(`the bench host exited (${host.exitCode})`);
    await sleep(50);
  }
  const workers = Array.from({ length: WORKERS }, (_, w) => worker(w));
  const samples = [];
  const end = Date.now() + MINUTES * 60_000;
  while (Date.now() < end) {
    await sleep(SAMPLE_MS);
    const { rss, heapUsed } = await memory();
    samples.push({ minute: (samples.length + 1) * (SAMPLE_MS / 60_000), served, rss, heapUsed });
    console.error(
      `${samples.at(-1).minute.toFixed(1)} min: ${served} requests, heap ${(heapUsed / 1048576).toFixed(1)} MB, rss ${(rss / 1048576).toFixed(1)} MB`,
    );
  }
  running = false;
  await Promise.all(workers);
  // After the first two minutes (warm-up: code compiled, caches filled), heap and RSS should stay level.
  const after = samples.filter((sample) => sample.minute > 2);
  const steady = after.length >= 2 ? after : samples;
  const [first, last] = [steady[0], steady.at(-1)];
  const mb = (bytes) => (bytes / 1048576).toFixed(1);
  console.log(`| | at ${first.minute} min | at ${last.minute} min | change | per 1,000 requests |`);
  console.log('|---|---:|---:|---:|---:|');
  for (const key of ['heapUsed', 'rss'])
    console.log(
      `| ${key} | ${mb(first[key])} MB | ${mb(last[key])} MB | ${mb(last[key] - first[key])} MB | ${(((last[key] - first[key]) / (last.served - first.served)) * 1000).toFixed(0)} B |`,
    );
  console.log(`${served} requests in ${MINUTES} min (${WORKERS} workers, a session per 20 requests)`);
} finally {
  host.kill('SIGTERM');
  await sleep(500);
  rmSync(dir, { recursive: true, force: true });
}
