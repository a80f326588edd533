// `npm run pack`: builds the package (libs/ → libs/dist) and writes its tarball, checked to hold
// only what an adopter needs (the bundle and its entries, .d.ts, the dashboard's asset files, package.json, README.md, LICENSE).
//   node libs/scripts/pack.mjs [--no-build] [destination]   (destination: packs/ by default)
// Prints the tarball's path as the last line of stdout. test/adopter.e2e-spec.ts packs with
// --no-build: rebuilding libs/dist under running tests would pull it from under them.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const args = process.argv.slice(2);
const build = !args.includes('--no-build');
const destination = resolve(args.find((arg) => !arg.startsWith('--')) ?? join(root, 'packs'));

// The npm that runs this script (npm_execpath), else the one on PATH.
function npm(npmArgs, stdout) {
  const cli = process.env.npm_execpath;
  const [command, prefix] = cli && /\.c?js$/.test(cli) ? [process.execPath, [cli]] : ['npm', []];
  return execFileSync(command, [...prefix, ...npmArgs], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', stdout, 'inherit'],
  });
}

if (build) npm(['run', 'build', '--silent', '-w', 'nest-mcp-host'], 'inherit');
mkdirSync(destination, { recursive: true });
// --ignore-scripts: prepack would build again (it is there for a plain `npm pack` / `npm publish` in libs/).
const [pack] = JSON.parse(
  npm(['pack', '-w', 'nest-mcp-host', '--ignore-scripts', '--json', '--pack-destination', destination], 'pipe'),
);

const SHIPPED =
  /^(package\.json|README\.md|LICENSE|dist\/bundle\/[a-z-]+\.js|dist\/.+(?<!\.spec)\.d\.ts|dist\/.+\/assets\/[^/]+)$/;
const unexpected = pack.files.map((file) => file.path).filter((path) => !SHIPPED.test(path));
const missing = [
  'package.json',
  'README.md',
  'LICENSE',
  'dist/bundle/nest-mcp-host.js',
  'dist/bundle/index.js',
  'dist/index.d.ts',
  'dist/bundle/postgres.js',
  'dist/bundle/redis.js',
  'dist/bundle/cli.js',
  'dist/operations/src/admin/assets/admin.html',
  'dist/operations/src/admin/assets/admin.css',
].filter((path) => !pack.files.some((file) => file.path === path));
if (unexpected.length || missing.length) {
  console.error(
    `${pack.filename}: ${[...unexpected.map((path) => `unexpected ${path}`), ...missing.map((path) => `missing ${path}`)].join(', ')}`,
  );
  console.error('Fix "files" in libs/package.json (or run `npm run build` first when packing with --no-build).');
  process.exit(1);
}
console.log(
  `${pack.files.length} files, ${(pack.size / 1024).toFixed(0)} kB packed, ${(pack.unpackedSize / 1024).toFixed(0)} kB unpacked`,
);
console.log(join(destination, pack.filename));
