// Post-build step of the package: the compiled libraries are ~450 files, and a Node process pays
// for each one it requires (resolving, reading, wrapping) — about half of what loading the package
// costs at start-up. So the four entries are bundled into one file, dist/bundle/nest-mcp-host.js
// (esbuild; packages stay external), whose modules keep their lazy `require`: what an entry does
// not reach is never run, and `nest-mcp-host/postgres` (`pg`), `/redis` (`ioredis`) and `/cli`
// run only when they are imported. One bundle for the four entries keeps one instance of each
// module (a class used as an injection token, an error class checked with `instanceof`) however
// many entries an application imports. dist/bundle/<entry>.js are the package's entry points;
// the per-file build stays in dist for the declarations and the benchmarks that read it.
//
// The barrels (each library's index.js and the entries) are made lazy in the bundle: tsc writes
// `var x_1 = require("./x")` for each file a barrel names, which would run every file of every
// library as soon as the package is required. Each getter requires its file when the name is first
// read instead, so what an application's options leave off (the REST bridge, the gateway, …) is
// neither run nor kept in memory unless something reaches it.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const out = join(dist, 'bundle');
const ENTRIES = ['index', 'postgres', 'redis', 'cli'];

/** A barrel tsc wrote, its files required when a name is first read (see above). */
function lazyBarrel(source) {
  const required = new Map();
  const eager = /^var (\w+_\d+) = require\(("[^"]+")\);\n/gm;
  const body = source.replace(eager, (_line, binding, specifier) => (required.set(binding, specifier), ''));
  return body.replace(/\b(\w+_\d+)\./g, (match, binding) =>
    required.has(binding) ? `require(${required.get(binding)}).` : match,
  );
}
const BARREL = /[\\/]dist[\\/](?:(?:index|postgres|redis|cli)\.js|[a-z-]+[\\/]src[\\/]index\.js)$/;
const lazyBarrels = {
  name: 'lazy-barrels',
  setup(build) {
    build.onLoad({ filter: BARREL }, ({ path }) => ({
      contents: lazyBarrel(readFileSync(path, 'utf8')),
      loader: 'js',
    }));
  },
};

const [root, ...lazy] = ENTRIES;
const contents = [
  `exports.${root} = require('./${root}.js');`,
  ...lazy.map(
    (entry) => `Object.defineProperty(exports, '${entry}', { enumerable: true, get: () => require('./${entry}.js') });`,
  ),
].join('\n');

await build({
  stdin: { contents, resolveDir: dist, sourcefile: 'entries.js', loader: 'js' },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  packages: 'external',
  // Nest names providers, modules and errors by their classes' names: kept as they were.
  keepNames: true,
  legalComments: 'none',
  plugins: [lazyBarrels],
  logLevel: 'warning',
  outfile: join(out, 'nest-mcp-host.js'),
});
// keepNames wraps each nested function in `__name(fn, "name")`, run whenever the function around it
// runs (a closure made per call is named per call). Most already have that name (a const's arrow
// function does): the helper leaves those alone instead of defining the property again each time.
const bundleFile = join(out, 'nest-mcp-host.js');
const NAME_HELPER = 'var __name = (target, value) => __defProp(target, "name", { value, configurable: true });';
const bundled = readFileSync(bundleFile, 'utf8');
if (!bundled.includes(NAME_HELPER)) throw new Error(`bundle.mjs: esbuild's __name helper is no longer ${NAME_HELPER}`);
writeFileSync(
  bundleFile,
  bundled.replace(
    NAME_HELPER,
    'var __name = (target, value) => target.name === value ? target : __defProp(target, "name", { value, configurable: true });',
  ),
);
mkdirSync(out, { recursive: true });
// Each entry names its exports as tsc writes them, so that an ES module's `import { McpModule } from
// 'nest-mcp-host'` finds them (Node reads a CommonJS module's names from its text).
const require = createRequire(import.meta.url);
for (const entry of ENTRIES) {
  const names = Object.keys(require(join(dist, `${entry}.js`))).filter((name) => name !== '__esModule');
  const lines = [
    "'use strict';",
    'Object.defineProperty(exports, "__esModule", { value: true });',
    `const entry = require("./nest-mcp-host.js").${entry};`,
    ...names.map(
      (name) =>
        `Object.defineProperty(exports, "${name}", { enumerable: true, get: function () { return entry.${name}; } });`,
    ),
  ];
  writeFileSync(join(out, `${entry}.js`), `${lines.join('\n')}\n`);
}
console.log(`bundle: ${ENTRIES.map((entry) => `${entry}.js`).join(', ')} → dist/bundle/nest-mcp-host.js`);
