// Memory: the idle bench host (300 entries, stateful 2025 mode), and what each idle 2025 session
// adds — 10,000 sessions opened (`initialize`, then `notifications/initialized`), none of them
// doing anything more. The host runs with --expose-gc and reports its memory after a full
// collection when told (SIGWINCH, apps/bench/src/main.ts), before and after the sessions.
// Then, MEMORY_SETTLE_S seconds (default 30) after the last request, once more: V8's memory reducer
// has by then given back the young generation that start-up and the requests grew (~30 MB of the
// resident set, held only for an idle host's first seconds); with 0 sessions, the idle host's own.
//   npm run build && node test/bench/sessions-memory.mjs [sessions=10000]
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from './bench-processes.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SESSIONS = Number(process.argv[2] ?? 10_000);
const CONCURRENCY = 16;
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
};

const port = await freePort();
const url = `http://127.0.0.1:${port}/mcp`;
const host = spawn(process.execPath, ['--expose-gc', join(root, 'dist', 'apps', 'bench', 'src', 'main.js')], {
  env: { ...process.env, PORT: String(port), BENCH_STATEFUL: '1', BENCH_MAX_SESSIONS: String(SESSIONS + 100) },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let out = '';
host.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk));

/** The host's memory after a full collection. */
async function memory() {
  const before = out.length;
  host.kill('SIGWINCH');
  for (;;) {
    const match = /MEMORY (\{.*\})/.exec(out.slice(before));
    if (match) return JSON.parse(match[1]);
    await sleep(20);
  }
}

/** One session opened and initialized; its id. */
async function openSession(id) {
  const opened = await fetch(url, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'memory', version: '1' } },
    }),
  });
  await opened.text();
  const session = opened.headers.get('mcp-session-id');
  if (!session) throw new Error(`initialize answered ${opened.status} without a session`);
  const initialized = await fetch(url, {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-session-id': session },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await initialized.text();
  return session;
}

try {
  while (!out.includes('bench host on')) {
    if (host.exitCode !== null) throw new Error(`the bench host exited (${host.exitCode})`);
    await sleep(50);
  }
  // Warm: every code path a session takes has run before the first measurement.
  for (let i = 0; i < 50; i++) await openSession(i);
  await sleep(1_000);
  const idle = await memory();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < SESSIONS) await openSession(1_000 + next++);
    }),
  );
  await sleep(1_000);
  const full = await memory();
  const settleSeconds = Number(process.env.MEMORY_SETTLE_S ?? 30);
  await sleep(settleSeconds * 1_000);
  const settled = await memory();
  const mb = (bytes) => (bytes / 1024 / 1024).toFixed(1);
  const perSession = (key) => (SESSIONS ? ((full[key] - idle[key]) / SESSIONS / 1024).toFixed(2) : '–');
  console.log(`| | idle (50 sessions) | with ${SESSIONS} more | per session |`);
  console.log('|---|---:|---:|---:|');
  for (const key of ['rss', 'heapUsed', 'external'])
    console.log(`| ${key} | ${mb(idle[key])} MB | ${mb(full[key])} MB | ${perSession(key)} KB |`);
  console.log(
    `\n${settleSeconds} s after the last request (${SESSIONS + 50} sessions): rss ${mb(settled.rss)} MB, heapUsed ${mb(settled.heapUsed)} MB`,
  );
} finally {
  host.kill('SIGTERM');
}
