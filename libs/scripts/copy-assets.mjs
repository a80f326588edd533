// Copies the non-TypeScript files a library needs at run time into the build output, since
// `tsc` emits `.ts` files only. Every folder named `assets` under <source root> (node_modules and
// dist excluded) is copied, with everything in it, to the same relative place under <output
// root>, where the compiled code resolves it from its own __dirname:
//
//   node scripts/copy-assets.mjs . dist   (in libs/, by its build script)
//   operations/src/admin/assets/admin.js -> dist/operations/src/admin/assets/admin.js
//
// An output `assets` folder is replaced, not merged, so a file deleted from the sources does not
// linger in the build. Paths are relative to the current directory (npm runs a package's scripts in its folder).
import { cpSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

const [from, to, ...extra] = process.argv.slice(2);
if (!from || !to || extra.length > 0) {
  console.error('Usage: node scripts/copy-assets.mjs <source root> <output root>   (e.g. libs dist/libs)');
  process.exit(2);
}
const source = resolve(from);
const output = resolve(to);
if (!existsSync(source) || !statSync(source).isDirectory()) {
  console.error(`copy-assets: the source root ${from} is not a directory (run it from the project root)`);
  process.exit(1);
}
// Inside the source root only under a skipped folder (e.g. libs/dist), else copies would be copied again.
if (output === source || (output.startsWith(source + sep) && !relative(source, output).split(sep).includes('dist'))) {
  console.error(
    `copy-assets: the output root ${to} must lie outside ${from} (or under a dist folder, which is skipped)`,
  );
  process.exit(1);
}

/** The `assets` folders under `dir`, not descending into them, node_modules or dist. */
function assetFolders(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === 'node_modules' || entry.name === 'dist') continue;
    const path = join(dir, entry.name);
    if (entry.name === 'assets') found.push(path);
    else found.push(...assetFolders(path));
  }
  return found;
}

// Silent on success, like tsc: some scripts (start:stdio, audit:verify) build before they print.
for (const folder of assetFolders(source)) {
  const target = join(output, relative(source, folder));
  rmSync(target, { recursive: true, force: true });
  cpSync(folder, target, { recursive: true });
}
