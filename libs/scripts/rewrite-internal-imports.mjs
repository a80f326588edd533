// Post-build step of the package: the libraries import each other as `#libs/<name>` (package.json
// "imports"). Node resolves that at run time, but TypeScript under `moduleResolution: node`
// (node10, still the default of many adopters' tsconfigs) cannot resolve `#` specifiers in our
// .d.ts files, and their types would turn into `any`. So every `#libs/<name>` in dist (*.js and
// *.d.ts) becomes the relative path of dist/<name>/src/index.js, which every resolution mode reads.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
// A quoted specifier: require("#libs/x"), from '#libs/x', import("#libs/x").
const INTERNAL = /(["'])#libs\/([a-z-]+)\1/g;

let files = 0;
for (const entry of readdirSync(dist, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || !/\.(js|d\.ts)$/.test(entry.name)) continue;
  const file = join(entry.parentPath, entry.name);
  const source = readFileSync(file, 'utf8');
  const rewritten = source.replace(INTERNAL, (_match, quote, name) => {
    let target = relative(entry.parentPath, join(dist, name, 'src', 'index.js'))
      .split(sep)
      .join('/');
    if (!target.startsWith('.')) target = `./${target}`;
    return `${quote}${target}${quote}`;
  });
  if (rewritten === source) continue;
  writeFileSync(file, rewritten);
  files++;
}
console.log(
  `rewrite-internal-imports: #libs/* made relative in ${files} file(s) of ${relative(process.cwd(), dist) || '.'}`,
);
