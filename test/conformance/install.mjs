// Installs the conformance suite and a Node 22 binary (the suite needs Node >= 22) into
// test/conformance/node_modules, apart from the project's own tree so that the project keeps
// running on the machine's Node 20. Run by the root package's postinstall; idempotent.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8')).dependencies;

function installedVersion(name) {
  const file = join(here, 'node_modules', name, 'package.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).version : undefined;
}

if (process.env.NEST_MCP_SKIP_CONFORMANCE_INSTALL === '1') {
  console.log('conformance suite: install skipped (NEST_MCP_SKIP_CONFORMANCE_INSTALL=1)');
} else if (Object.entries(wanted).every(([name, version]) => installedVersion(name) === version)) {
  console.log('conformance suite: already installed');
} else {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const command = existsSync(join(here, 'package-lock.json')) ? 'ci' : 'install';
  console.log(`conformance suite: npm ${command} in test/conformance`);
  try {
    execFileSync(npm, [command, '--no-audit', '--no-fund', '--loglevel=error'], { cwd: here, stdio: 'inherit' });
  } catch {
    execFileSync(npm, ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: here, stdio: 'inherit' });
  }
}
