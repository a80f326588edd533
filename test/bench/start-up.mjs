// Start-up over HTTP: spawn → the answer to the first `tools/call`, for a bare Nest app (the
// yardstick), the README's one-tool app, the bench app (300 entries: `add`, 100 tools, 100
// prompts, 100 resources) and the peers on the same catalog; with each process's CPU time at
// that moment and its resident memory once idle.
//   npm run build && node test/bench/start-up.mjs [rounds=5]
// Subjects are interleaved (one process of each per round) and each figure is the median of the
// rounds. The CPU column (user + system time of the process when it answered) is what start-up
// costs even when other processes slow the wall clock: compare ratios of it within one run.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from './bench-processes.mjs';
import { ensurePeers } from './peers/install.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const ROUNDS = Number(process.argv[2] ?? 5);
const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
/** User + system CPU ms of a process (fields 14 and 15 of /proc/<pid>/stat, in 10 ms ticks). */
const cpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

const ADD = { name: 'add', arguments: { a: 1, b: 2 } };
const headers = (revision, extra = {}) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': revision,
  ...extra,
});
/** A stateless 2026-07-28 `tools/call add` (the revision and client in `_meta`). */
const modernCall = (url) =>
  fetch(url, {
    method: 'POST',
    headers: headers(MODERN, { 'mcp-method': 'tools/call', 'mcp-name': 'add' }),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        ...ADD,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': MODERN,
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 'start-up', version: '1' },
        },
      },
    }),
  });
/** A 2025-11-25 `tools/call add` without a session (a stateless server). */
const legacyCall = (url, extra = {}) =>
  fetch(url, {
    method: 'POST',
    headers: headers(LEGACY, extra),
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: ADD }),
  });
/** `initialize`, then the call in that session (a stateful 2025 server). */
const sessionCall = async (url) => {
  const opened = await fetch(url, {
    method: 'POST',
    headers: headers(LEGACY),
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: 'start-up', version: '1' } },
    }),
  });
  await opened.text();
  return legacyCall(url, { 'mcp-session-id': opened.headers.get('mcp-session-id') ?? '' });
};

const SUBJECTS = [
  {
    id: 'nest',
    label: 'bare Nest HTTP app (Express, empty module)',
    entry: 'bare-nest-server.mjs',
    call: (url) => fetch(`${url.replace(/\/mcp$/, '')}/`),
    answered: (text) => text.includes('Cannot GET'),
  },
  {
    id: 'readme',
    label: "README's one-tool app (nest-mcp-host defaults)",
    entry: 'readme-app-server.cjs',
    call: modernCall,
  },
  {
    id: 'readmeEsm',
    label: "README's one-tool app as an ES module",
    entry: 'readme-app-server.mjs',
    call: modernCall,
  },
  {
    id: 'ours',
    label: 'nest-mcp-host bench app (300 entries)',
    entry: join(root, 'dist', 'apps', 'bench', 'src', 'main.js'),
    call: modernCall,
  },
  { id: 'mcpnest', label: '@rekog/mcp-nest 2 (300 entries)', entry: 'peers/mcp-nest-server.mjs', call: modernCall },
  { id: 'fastmcp', label: 'fastmcp 4 (300 entries)', entry: 'peers/fastmcp-server.mjs', call: legacyCall },
  { id: 'sdk', label: 'official SDK v1, stateful (300 entries)', entry: 'sdk-server.mjs', call: sessionCall },
  { id: 'sdk2', label: 'official SDK v2, createMcpHandler (300 entries)', entry: 'sdk2-server.mjs', call: modernCall },
];
const only = process.env.START_ONLY?.split(',');
const chosen = only ? SUBJECTS.filter((subject) => only.includes(subject.id)) : SUBJECTS;
// START_BEFORE=<another built checkout>: each of our subjects once more from there, in the same
// rounds (a change's before and after in one run): its package and bench app, and the README app
// files of its test/bench (copy this checkout's there, so that both run the same app).
const before = process.env.START_BEFORE;
const subjects = before
  ? chosen.flatMap((subject) =>
      ['readme', 'readmeEsm', 'ours'].includes(subject.id)
        ? [
            subject,
            {
              ...subject,
              id: `${subject.id}@before`,
              label: `${subject.label}, before`,
              root: before,
              entry: subject.id === 'ours' ? join(before, 'dist', 'apps', 'bench', 'src', 'main.js') : subject.entry,
            },
          ]
        : [subject],
    )
  : chosen;
if (subjects.some((subject) => subject.entry.startsWith('peers/'))) ensurePeers();

const accepts = (port) =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.end(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

/** One fresh process: ms from spawn to the first call's answer, its CPU then, its RSS 1 s later. */
async function once(subject) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/mcp`;
  const started = performance.now();
  const entry = subject.entry.startsWith('/')
    ? subject.entry
    : join(subject.root ? join(subject.root, 'test', 'bench') : here, subject.entry);
  const child = spawn(process.execPath, [entry], {
    cwd: subject.root ?? root,
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${subject.id} exited (${child.exitCode}) before it answered`);
      if (await accepts(port)) break;
      await sleep(2);
    }
    const response = await subject.call(url);
    const text = await response.text();
    const ms = performance.now() - started;
    const cpu = cpuMs(child.pid);
    if (!(subject.answered ?? ((body) => body.includes('"text":"3"')))(text))
      throw new Error(`${subject.id} answered ${response.status}: ${text.slice(0, 300)}`);
    await sleep(1_000);
    return { ms, cpu, rss: rssMb(child.pid) };
  } finally {
    child.kill();
    await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once('exit', resolve)));
  }
}

const results = new Map(subjects.map((subject) => [subject.id, []]));
for (let round = 1; round <= ROUNDS; round++)
  for (const subject of subjects) {
    const result = await once(subject);
    results.get(subject.id).push(result);
    console.error(
      `round ${round}: ${subject.id.padEnd(8)} ${result.ms.toFixed(0)} ms, CPU ${result.cpu} ms, RSS ${result.rss.toFixed(0)} MB`,
    );
  }

const nest = results.get('nest');
const nestCpu = nest ? median(nest.map((r) => r.cpu)) : undefined;
console.log(`\n| subject | answered (median) | CPU (median) | CPU vs bare Nest | idle RSS |`);
console.log(`|---|---:|---:|---:|---:|`);
for (const subject of subjects) {
  const runs = results.get(subject.id);
  const cpu = median(runs.map((r) => r.cpu));
  console.log(
    `| ${subject.label} | ${median(runs.map((r) => r.ms)).toFixed(0)} ms | ${cpu} ms | ${nestCpu ? `${(cpu / nestCpu).toFixed(2)}×` : '–'} | ${median(runs.map((r) => r.rss)).toFixed(0)} MB |`,
  );
}
