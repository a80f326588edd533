// What a tools/call allocates: the floor (bare node:http) and the bench app (apps/bench), plain and
// secured + audited, each under wrk with V8's sampling heap profiler on after a warm-up, keeping the
// objects garbage collection took (test/bench/profile-on-signal.mjs). Bytes allocated per request,
// and the functions that allocate most. Load-independent, unlike throughput: the figure to compare
// a change with. ALLOC_BEFORE=<another built checkout> adds its bench app beside this one's.
//   npm run build && node test/bench/allocations.mjs
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort, toolsCallScript } from './bench-processes.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'allocations-'));
const benchApp = (checkout) => join(checkout, 'dist', 'apps', 'bench', 'src', 'main.js');
const before = process.env.ALLOC_BEFORE;
const SUBJECTS = [
  { label: 'floor (bare node:http)', entry: join(here, 'floor-server.mjs') },
  ...(before ? [{ label: 'bench app, before', entry: benchApp(before) }] : []),
  { label: 'bench app', entry: benchApp(root) },
  ...(before
    ? [{ label: 'bench app + API key + throttling + audit, before', entry: benchApp(before), secure: true }]
    : []),
  { label: 'bench app + API key + throttling + audit', entry: benchApp(root), secure: true },
];

async function measure(subject, index) {
  const port = await freePort();
  const profile = join(work, `${index}.heapprofile`);
  const host = spawn(process.execPath, ['--import', join(here, 'profile-on-signal.mjs'), subject.entry], {
    env: {
      ...process.env,
      PORT: String(port),
      PROFILE_KIND: 'heap',
      PROFILE_OUT: profile,
      ...(subject.secure && { BENCH_SECURE: '1', BENCH_AUDIT_FILE: join(work, `${index}.audit.jsonl`) }),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let printed = '';
  host.stdout.setEncoding('utf8').on('data', (chunk) => (printed += chunk));
  const url = `http://127.0.0.1:${port}/mcp`;
  const script = toolsCallScript(work, { secure: subject.secure });
  const wrk = (seconds) =>
    spawnSync('wrk', ['-t1', '-c30', `-d${seconds}s`, '-s', script, url], { encoding: 'utf8' }).stdout;
  for (let waited = 0; !/requests in/.test(wrk(1)); waited += 250) {
    if (waited > 60_000) throw new Error(`${subject.label} did not answer`);
    await sleep(250);
  }
  wrk(2); // warm-up
  host.kill('SIGWINCH');
  await sleep(200);
  const requests = Number(/(\d+) requests in/.exec(wrk(3))[1]);
  host.kill('SIGWINCH');
  while (!printed.includes('PROFILE WRITTEN')) await sleep(100);
  host.kill('SIGTERM');
  const bytes = new Map();
  const walk = (node) => {
    const { functionName, url: file, lineNumber } = node.callFrame;
    const key = `${functionName || '(anonymous)'} ${file.replace(/^.*node_modules\//, '').replace(/^.*\//, '')}:${lineNumber + 1}`;
    bytes.set(key, (bytes.get(key) ?? 0) + node.selfSize);
    node.children?.forEach(walk);
  };
  walk(JSON.parse(readFileSync(profile, 'utf8')).head);
  const total = [...bytes.values()].reduce((sum, size) => sum + size, 0);
  const top = [...bytes].sort((a, b) => b[1] - a[1]).slice(0, 6);
  return { total: total / requests, top: top.map(([key, size]) => `${key} ${Math.round(size / requests)} B`) };
}

console.log('| process | allocated per tools/call | most by |\n|---|---:|---|');
for (const [index, subject] of SUBJECTS.entries()) {
  const { total, top } = await measure(subject, index);
  console.log(`| ${subject.label} | ${(total / 1024).toFixed(1)} KB | ${top.slice(0, 3).join('; ')} |`);
}
