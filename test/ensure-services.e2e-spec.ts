import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SCRIPT = join(__dirname, 'support', 'ensure-services.mjs');
const machines: string[] = [];

/** Runs the first step of `npm test` against a made-up machine: its PATH, PostgreSQL root and chromium. */
function run(machine: string, asRoot: boolean) {
  const result = spawnSync(process.execPath, [SCRIPT], {
    encoding: 'utf8',
    env: {
      ...process.env,
      ENSURE_SERVICES_PATH: join(machine, 'bin'),
      ENSURE_SERVICES_POSTGRES_ROOT: join(machine, 'postgresql'),
      ENSURE_SERVICES_CHROMIUM: join(machine, 'chromium'),
      ENSURE_SERVICES_RSYSLOG_LIB: join(machine, 'rsyslog'),
      ENSURE_SERVICES_AS_ROOT: asRoot ? '1' : '0',
    },
  });
  return { status: result.status, out: result.stdout + result.stderr };
}

function emptyMachine(): string {
  const machine = mkdtempSync(join(tmpdir(), 'fresh-machine-'));
  machines.push(machine);
  mkdirSync(join(machine, 'bin'));
  return machine;
}

/**
 * A stand-in for apt-get on the made-up machine: it records its calls in apt.log and "installs"
 * what the script looks for (a redis-server on the PATH, initdb and postgres, chromium, haproxy,
 * rsyslogd and its TLS driver, prometheus and promtool).
 */
function fakeAptGet(machine: string): string {
  const aptGet = join(machine, 'bin', 'apt-get');
  writeFileSync(
    aptGet,
    [
      '#!/bin/sh',
      `echo "$@" >> ${machine}/apt.log`,
      'case "$1" in install)',
      `  printf '#!/bin/sh\\necho Redis server v=0.0.0\\n' > ${machine}/bin/redis-server`,
      `  chmod +x ${machine}/bin/redis-server`,
      `  mkdir -p ${machine}/postgresql/15/bin`,
      `  touch ${machine}/postgresql/15/bin/initdb ${machine}/postgresql/15/bin/postgres`,
      `  touch ${machine}/chromium`,
      `  printf '#!/bin/sh\\necho HAProxy version 0.0.0\\n' > ${machine}/bin/haproxy`,
      `  chmod +x ${machine}/bin/haproxy`,
      `  printf '#!/bin/sh\\necho rsyslogd 0.0.0\\n' > ${machine}/bin/rsyslogd`,
      `  mkdir -p ${machine}/rsyslog && touch ${machine}/rsyslog/lmnsd_gtls.so`,
      `  printf '#!/bin/sh\\necho prometheus, version 0.0.0\\n' > ${machine}/bin/prometheus`,
      `  cp ${machine}/bin/prometheus ${machine}/bin/promtool`,
      `  chmod +x ${machine}/bin/rsyslogd ${machine}/bin/prometheus ${machine}/bin/promtool ;;`,
      'esac',
    ].join('\n'),
  );
  chmodSync(aptGet, 0o755);
  return join(machine, 'apt.log');
}

afterAll(() => {
  for (const machine of machines) rmSync(machine, { recursive: true, force: true });
});

describe('npm test on a fresh machine (test/support/ensure-services.mjs)', () => {
  it('stops before anything else when not root, naming what is missing and the command that installs it', () => {
    const machine = emptyMachine();
    const aptLog = fakeAptGet(machine);
    const { status, out } = run(machine, false);
    expect(status).toBe(1);
    expect(out).toContain('redis-server (Debian package redis-server)');
    expect(out).toContain('PostgreSQL server (initdb, postgres) (Debian package postgresql)');
    expect(out).toContain('chromium (Debian package chromium)');
    expect(out).toContain('haproxy (Debian package haproxy)');
    expect(out).toContain("rsyslog's TLS driver (lmnsd_gtls) (Debian package rsyslog-gnutls)");
    expect(out).toContain('prometheus (and promtool) (Debian package prometheus)');
    expect(out).toContain(
      'sudo apt-get install -y redis-server postgresql chromium haproxy rsyslog rsyslog-gnutls prometheus',
    );
    // Nothing was tried: apt-get is there, but only root may use it.
    expect(existsSync(aptLog)).toBe(false);
  });

  it('installs them itself when it runs as root with apt-get, as CI does', () => {
    const machine = emptyMachine();
    const aptLog = fakeAptGet(machine);
    const { status, out } = run(machine, true);
    expect(status).toBe(0);
    expect(readFileSync(aptLog, 'utf8').trim().split('\n')).toEqual([
      'update -qq',
      'install -y -qq redis-server postgresql chromium haproxy rsyslog rsyslog-gnutls prometheus',
    ]);
    expect(out).toContain(
      'npm test: installing redis-server, postgresql, chromium, haproxy, rsyslog, rsyslog-gnutls, prometheus',
    );
    expect(out).toContain(`npm test: redis-server at ${join(machine, 'bin', 'redis-server')}: Redis server v=0.0.0`);
    expect(out).toContain(`npm test: haproxy at ${join(machine, 'bin', 'haproxy')}: HAProxy version 0.0.0`);
  });

  it('says what to do as root without apt-get', () => {
    const { status, out } = run(emptyMachine(), true);
    expect(status).toBe(1);
    expect(out).toContain(
      'sudo apt-get install -y redis-server postgresql chromium haproxy rsyslog rsyslog-gnutls prometheus',
    );
    expect(out).toContain('apt-get is not on the PATH here');
  });

  it('goes on at once on this machine, where everything is installed, printing versions', () => {
    const started = Date.now();
    const result = spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.stdout.split('\n')).toEqual([
      expect.stringMatching(/^npm test: redis-server at \S+: Redis server v=\d/),
      expect.stringMatching(
        /^npm test: PostgreSQL server \(initdb, postgres\) at \S+initdb: postgres \(PostgreSQL\) \d/,
      ),
      expect.stringMatching(/^npm test: chromium at \S+: Chromium \d/),
      expect.stringMatching(/^npm test: haproxy at \S+: HAProxy version \d/),
      expect.stringMatching(/^npm test: rsyslogd at \S+: rsyslogd\s+\d/),
      expect.stringMatching(/^npm test: rsyslog's TLS driver \(lmnsd_gtls\) at \S+lmnsd_gtls.so: installed/),
      expect.stringMatching(/^npm test: prometheus \(and promtool\) at \S+: prometheus, version \d/),
      '',
    ]);
  });
});
