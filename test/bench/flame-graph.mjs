// Where a tools/call's CPU goes: the bench app (apps/bench) under wrk, profiled by V8 after a
// warm-up (test/bench/profile-on-signal.mjs), drawn as a flame graph (SVG): each box is a function,
// as wide as its share of the busy time, above the function that called it.
//   npm run build && node test/bench/flame-graph.mjs [out.svg]     (FLAME_VARIANT=plain|secureAudit, FLAME_SECONDS=6)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort, toolsCallScript } from './bench-processes.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const VARIANT = process.env.FLAME_VARIANT ?? 'secureAudit';
const SECONDS = Number(process.env.FLAME_SECONDS ?? 6);
const out = process.argv[2] ?? join(root, 'docs', `flame-${VARIANT}.svg`);
const work = mkdtempSync(join(tmpdir(), 'flame-'));
const profileFile = join(work, 'call.cpuprofile');
const secure = VARIANT === 'secureAudit';

const port = await freePort();
const host = spawn(
  process.execPath,
  ['--import', join(here, 'profile-on-signal.mjs'), join(root, 'dist', 'apps', 'bench', 'src', 'main.js')],
  {
    env: {
      ...process.env,
      PORT: String(port),
      PROFILE_OUT: profileFile,
      ...(secure && { BENCH_SECURE: '1', BENCH_AUDIT_FILE: join(work, 'audit.jsonl') }),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
let printed = '';
host.stdout.setEncoding('utf8').on('data', (chunk) => (printed += chunk));
const until = async (text) => {
  for (let waited = 0; !printed.includes(text); waited += 100) {
    if (waited > 60_000) throw new Error(`the bench app did not print "${text}"`);
    await sleep(100);
  }
};
await until('bench host on');

const script = toolsCallScript(work, { secure });
const wrk = (seconds) =>
  spawnSync('wrk', ['-t1', '-c30', `-d${seconds}s`, '-s', script, `http://127.0.0.1:${port}/mcp`], {
    encoding: 'utf8',
  }).stdout;
wrk(2); // warm-up: compiled code, caches
host.kill('SIGWINCH');
await sleep(200);
const measured = wrk(SECONDS);
host.kill('SIGWINCH');
await until('PROFILE WRITTEN');
host.kill('SIGTERM');
const rate = /Requests\/sec:\s+([\d.]+)/.exec(measured)?.[1];

const svg = flameGraph(JSON.parse(readFileSync(profileFile, 'utf8')), {
  title: `tools/call on the bench app (${secure ? 'API key + throttling + audit trail' : 'plain'}), ${Math.round(Number(rate))} req/s under wrk while profiled`,
});
writeFileSync(out, svg);
console.log(`${out} written (${rate} req/s while profiled)`);

/** The profile's call tree as an SVG flame graph; idle time left out, garbage collection kept. */
function flameGraph(profile, { title }) {
  const byId = new Map(profile.nodes.map((node) => [node.id, { ...node, self: 0, total: 0 }]));
  profile.samples.forEach((id, index) => (byId.get(id).self += profile.timeDeltas[index] ?? 0));
  const rootNode = byId.get(profile.nodes[0].id);
  const skipped = new Set(['(idle)', '(program)']);
  const totalOf = (node) =>
    (node.total =
      (skipped.has(node.callFrame.functionName) ? 0 : node.self) +
      (node.children ?? []).reduce((sum, child) => sum + totalOf(byId.get(child)), 0));
  totalOf(rootNode);
  const width = 1600;
  const row = 17;
  const scale = (width - 20) / rootNode.total;
  const boxes = [];
  let depthMax = 0;
  const place = (node, x, depth) => {
    const w = node.total * scale;
    if (w < 0.3) return;
    depthMax = Math.max(depthMax, depth);
    boxes.push({ node, x, depth, w });
    let childX = x;
    for (const id of node.children ?? []) {
      const child = byId.get(id);
      if (skipped.has(child.callFrame.functionName)) continue;
      place(child, childX, depth + 1);
      childX += child.total * scale;
    }
  };
  place(rootNode, 10, 0);
  const height = (depthMax + 1) * row + 60;
  const label = (frame) => {
    const file = (frame.url || '').replace(/^.*node_modules\//, '').replace(/^.*\//, '') || '';
    return `${frame.functionName || '(anonymous)'}${file ? ` ${file}:${frame.lineNumber + 1}` : ''}`;
  };
  const colour = (frame) => {
    const url = frame.url || '';
    if (frame.functionName === '(garbage collector)') return '#b07cc6';
    if (url.includes('nest-mcp-host') || url.includes('/libs/')) return '#5b9bd5';
    if (url.includes('@nestjs/')) return '#e06666';
    if (url.includes('node_modules/')) return '#f6b26b';
    if (url.startsWith('node:') || !url) return '#b7b7b7';
    return '#93c47d';
  };
  const escape = (text) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const rects = boxes
    .map(({ node, x, depth, w }) => {
      const y = height - 30 - (depth + 1) * row;
      const text = label(node.callFrame);
      const share = ((100 * node.total) / rootNode.total).toFixed(1);
      const fits = Math.floor((w - 6) / 6.2);
      const shown = fits >= 4 ? (text.length > fits ? `${text.slice(0, fits - 1)}…` : text) : '';
      return `<g><title>${escape(text)} — ${share} %</title><rect x="${x.toFixed(1)}" y="${y}" width="${Math.max(w - 0.5, 0.2).toFixed(1)}" height="${row - 1}" fill="${colour(node.callFrame)}"/>${shown ? `<text x="${(x + 3).toFixed(1)}" y="${y + 12}">${escape(shown)}</text>` : ''}</g>`;
    })
    .join('\n');
  const legend = [
    ['#5b9bd5', 'nest-mcp-host'],
    ['#e06666', 'NestJS'],
    ['#f6b26b', 'other packages'],
    ['#b7b7b7', 'Node.js'],
    ['#b07cc6', 'garbage collection'],
  ]
    .map(
      ([fill, name], index) =>
        `<rect x="${10 + index * 170}" y="32" width="12" height="12" fill="${fill}"/><text x="${27 + index * 170}" y="42">${name}</text>`,
    )
    .join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="monospace" font-size="11">
<rect width="100%" height="100%" fill="#ffffff"/>
<text x="10" y="20" font-size="14">${escape(title)}</text>${legend}
${rects}
</svg>
`;
}
