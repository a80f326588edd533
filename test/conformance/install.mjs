// Installs the conformance suites (0.1.16 and, as `conformance-next`, 0.2.0-alpha.12) and a
// Node 22 binary (the suites need Node >= 22) into test/conformance/node_modules, apart from the
// project's own tree so that the project keeps running on Node 20 and no `node` bin shadows it.
// Run by the root postinstall; idempotent.
import { execFileSync } from 'node:child_process';
import { binaryPackage, here, requiredPackages, versions } from './suite.mjs';

const needed = requiredPackages();
const stale = needed.filter((name) => {
  const { wanted, installed } = versions(name);
  return installed !== wanted;
});

if (process.env.NEST_MCP_SKIP_CONFORMANCE_INSTALL === '1') {
  console.log('conformance suite: install skipped (NEST_MCP_SKIP_CONFORMANCE_INSTALL=1)');
} else if (/\bdev\b/.test(process.env.npm_config_omit ?? '')) {
  console.log('conformance suite: install skipped (dev dependencies omitted)');
} else if (stale.length === 0) {
  console.log('conformance suite: already installed');
} else {
  console.log(`conformance suite: npm ci in test/conformance (${stale.join(', ')})`);
  // The root install's own flags (e.g. --omit=optional) must not decide what the suite gets.
  const env = { ...process.env };
  for (const key of ['npm_config_omit', 'npm_config_include', 'npm_config_production', 'npm_config_only'])
    delete env[key];
  // Reuse the npm that runs the root install; spawning npm.cmd on Windows needs a shell.
  const npmCli = /npm-cli\.js$/.test(process.env.npm_execpath ?? '') ? process.env.npm_execpath : undefined;
  const [command, prefix, shell] = npmCli
    ? [process.execPath, [npmCli], false]
    : [process.platform === 'win32' ? 'npm.cmd' : 'npm', [], process.platform === 'win32'];
  try {
    execFileSync(command, [...prefix, 'ci', '--no-audit', '--no-fund', '--no-progress', '--loglevel=error'], {
      cwd: here,
      env,
      shell,
      stdio: 'inherit',
    });
  } catch {
    console.error(
      'conformance suite: `npm ci` failed in test/conformance. If its package.json changed, run ' +
        '`npm install` there to update package-lock.json; set NEST_MCP_SKIP_CONFORMANCE_INSTALL=1 to skip.',
    );
    process.exit(1);
  }
  const missing = needed.filter((name) => versions(name).installed !== versions(name).wanted);
  if (missing.length > 0) {
    console.error(`conformance suite: still missing after npm ci: ${missing.join(', ')}`);
    process.exit(1);
  }
  if (!binaryPackage()) {
    console.log(
      `conformance suite: no Node 22 package for ${process.platform}-${process.arch}; run.mjs will need Node >= 22 or $CONFORMANCE_NODE`,
    );
  }
}
