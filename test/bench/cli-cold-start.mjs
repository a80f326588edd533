// Cold start of the support desk's CLI: spawn → output → exit of `call search_tickets --status open`
// (and `list`), as an operator or a cron job runs it; and a bare `node -e 0` beside it (what Node
// alone costs on this machine at this moment).
//   npm run build && node test/bench/cli-cold-start.mjs [runs=10]
// Each figure is the median (and the slowest) of `runs` fresh processes, run one after another.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RUNS = Number(process.argv[2] ?? 10);
const CLI = join(root, 'dist', 'src', 'cli.js');

const CASES = [
  { label: 'node -e 0 (floor)', args: ['-e', '0'] },
  { label: 'desk list', args: [CLI, 'list'] },
  { label: 'desk call search_tickets --status open', args: [CLI, 'call', 'search_tickets', '--status', 'open'] },
];

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

console.log(`| command | median ms | slowest ms |\n|---|---:|---:|`);
for (const { label, args } of CASES) {
  const times = [];
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    const result = spawnSync(process.execPath, args, {
      cwd: root,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, AUDIT_FILE: join(root, 'test-output', 'cli-cold-start.jsonl') },
    });
    times.push(performance.now() - started);
    if (result.status !== 0) throw new Error(`${label} exited ${result.status}: ${result.stderr}`);
    if (run === 0 && label.startsWith('desk call') && !result.stdout.includes('"status":"open"'))
      throw new Error(`${label} printed no open ticket: ${result.stdout.slice(0, 200)}`);
  }
  console.log(`| ${label} | ${median(times).toFixed(0)} | ${Math.max(...times).toFixed(0)} |`);
}
