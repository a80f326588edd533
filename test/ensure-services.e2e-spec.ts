import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SCRIPT = join(__dirname, 'support', 'ensure-services.mjs');

/** Runs the first step of `npm test` against a made-up machine: its PATH, PostgreSQL root and chromium. */
function run(machine: string, asRoot: boolean) {
  const result = spawnSync(process.execPath, [SCRIPT], {
    encoding: 'utf8',
    env: {
      ...process.env,
      ENSURE_SERVICES_PATH: join(machine, 'bin'),
      ENSURE_SERVICES_POSTGRES_ROOT: join(machine, 'postgresql'),
      ENSURE_SERVICES_CHROMIUM: join(machine, 'chromium'),
      ENSURE_SERVICES_AS_ROOT: asRoot ? '1' : '0',
    },
  });
  return { status: result.status, out: result.stdout + result.stderr };
}

function emptyMachine(): string {
  const machine = mkdtempSync(join(tmpdir(), 'fresh-machine-'));
  mkdirSync(join(machine, 'bin'));
  return machine;
}

describe('npm test on a fresh machine (test/support/ensure-services.mjs)', () => {
  it('stops before any test, naming what is missing and the command that installs it', () => {
    const { status, out } = run(emptyMachine(), false);
    expect(status).toBe(1);
    expect(out).toContain('redis-server (Debian package redis-server)');
    expect(out).toContain('PostgreSQL server (initdb, postgres) (Debian package postgresql)');
    expect(out).toContain('chromium (Debian package chromium)');
    expect(out).toContain('sudo apt-get install -y redis-server postgresql chromium');
  });

  it('installs them itself when it runs as root with apt-get, as CI does', () => {
    const machine = emptyMachine();
    // A stand-in for apt-get that records its calls and "installs" what the script looks for.
    const aptGet = join(machine, 'bin', 'apt-get');
    writeFileSync(
      aptGet,
      [
        '#!/bin/sh',
        `echo "$@" >> ${machine}/apt.log`,
        'case "$1" in install)',
        `  printf '#!/bin/sh\\n' > ${machine}/bin/redis-server && chmod +x ${machine}/bin/redis-server`,
        `  mkdir -p ${machine}/postgresql/15/bin && touch ${machine}/postgresql/15/bin/initdb ${machine}/postgresql/15/bin/postgres`,
        `  touch ${machine}/chromium ;;`,
        'esac',
      ].join('\n'),
    );
    chmodSync(aptGet, 0o755);
    const { status, out } = run(machine, true);
    expect(status).toBe(0);
    expect(readFileSync(join(machine, 'apt.log'), 'utf8').trim().split('\n')).toEqual(['update -qq', 'install -y -qq redis-server postgresql chromium']);
    expect(out).toContain('npm test: found redis-server at');
  });

  it('says what to do as root without apt-get', () => {
    const { status, out } = run(emptyMachine(), true);
    expect(status).toBe(1);
    expect(out).toContain("apt-get is not on the PATH here");
  });

  it('goes on at once on this machine, where everything is installed', () => {
    const result = spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^npm test: found redis-server at \S+, PostgreSQL at \S+initdb, chromium at \S+\n$/);
  });
});
