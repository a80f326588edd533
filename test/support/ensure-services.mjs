// The first step of `npm test`: the servers some tests run for real, from Debian's packages —
// redis-server (shared throttling, readiness), PostgreSQL's server binaries (the audit sink's
// tests start private servers), chromium (the admin dashboard's browser test) and haproxy (two
// hosts behind a round-robin load balancer). Missing ones
// are installed when running as root with apt-get (CI, a fresh container); otherwise the step
// stops before any test, naming what is missing and the command that installs it. Also rsyslog with
// its TLS driver (the audit trail's syslog sink) and prometheus with promtool (the alerting rules).
//
// Where it looks can be changed, for its own test: ENSURE_SERVICES_PATH (the PATH searched),
// ENSURE_SERVICES_POSTGRES_ROOT (/usr/lib/postgresql), ENSURE_SERVICES_CHROMIUM
// (/usr/bin/chromium), ENSURE_SERVICES_RSYSLOG_LIB (where rsyslog's modules are, /usr/lib/<arch>/rsyslog),
// ENSURE_SERVICES_AS_ROOT (1 or 0, instead of asking the OS).
//
// It ends by printing where each one is and its version (what .ci/run's log shows of them).
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const env = process.env;
const searchPath = env.ENSURE_SERVICES_PATH ?? env.PATH ?? '';
const postgresRoot = env.ENSURE_SERVICES_POSTGRES_ROOT ?? '/usr/lib/postgresql';
const chromium = env.ENSURE_SERVICES_CHROMIUM ?? '/usr/bin/chromium';
const rsyslogLibs = env.ENSURE_SERVICES_RSYSLOG_LIB
  ? [env.ENSURE_SERVICES_RSYSLOG_LIB]
  : ['/usr/lib/x86_64-linux-gnu/rsyslog', '/usr/lib/aarch64-linux-gnu/rsyslog', '/usr/lib/rsyslog'];
const asRoot =
  env.ENSURE_SERVICES_AS_ROOT !== undefined ? env.ENSURE_SERVICES_AS_ROOT === '1' : process.getuid?.() === 0;

/** The executable `name` on the search path (or on `path`), if any. */
function onPath(name, path = searchPath) {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** `initdb` of an installed PostgreSQL major version (the tests start their own servers with it). */
function postgresServer() {
  const versions = existsSync(postgresRoot) ? readdirSync(postgresRoot) : [];
  return versions
    .map((version) => join(postgresRoot, version, 'bin', 'initdb'))
    .find((initdb) => existsSync(initdb) && existsSync(initdb.replace(/initdb$/, 'postgres')));
}

const NEEDS = [
  {
    what: 'redis-server',
    debian: 'redis-server',
    find: () => onPath('redis-server'),
    versionOf: (redisServer) => redisServer,
    usedBy: 'throttling shared by two processes, readiness',
  },
  {
    what: 'PostgreSQL server (initdb, postgres)',
    debian: 'postgresql',
    find: postgresServer,
    versionOf: (initdb) => initdb.replace(/initdb$/, 'postgres'),
    usedBy: 'the PostgreSQL audit sink',
  },
  {
    what: 'chromium',
    debian: 'chromium',
    find: () => (existsSync(chromium) ? chromium : undefined),
    versionOf: (chromiumBinary) => chromiumBinary,
    usedBy: 'the admin dashboard in a browser',
  },
  {
    what: 'haproxy',
    debian: 'haproxy',
    find: () => onPath('haproxy'),
    versionOf: (haproxy) => haproxy,
    versionFlag: '-v', // haproxy has no --version
    usedBy: 'two hosts behind a round-robin load balancer',
  },
  {
    what: 'rsyslogd',
    debian: 'rsyslog',
    // Debian puts it in /usr/sbin, which a user's PATH may lack.
    find: () => onPath('rsyslogd') ?? (env.ENSURE_SERVICES_PATH ? undefined : onPath('rsyslogd', '/usr/sbin')),
    versionOf: (rsyslogd) => rsyslogd,
    versionFlag: '-v',
    usedBy: 'the audit trail forwarded to syslog',
  },
  {
    what: "rsyslog's TLS driver (lmnsd_gtls)",
    debian: 'rsyslog-gnutls',
    find: () => rsyslogLibs.map((dir) => join(dir, 'lmnsd_gtls.so')).find((file) => existsSync(file)),
    versionOf: () => undefined,
    usedBy: 'syslog over TLS (RFC 5425)',
  },
  {
    what: 'prometheus (and promtool)',
    debian: 'prometheus',
    find: () => (onPath('promtool') ? onPath('prometheus') : undefined),
    versionOf: (prometheus) => prometheus,
    usedBy: 'the alerting rules checked and evaluated against the desk',
  },
];

/** The first line `binary --version` (or the flag given) prints, or a note that it printed none. */
function version(binary, flag = '--version') {
  if (binary === undefined) return 'installed';
  try {
    const out = execFileSync(binary, [flag], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 10_000,
    });
    return out.trim().split('\n')[0] || 'no version printed';
  } catch {
    return 'no version printed';
  }
}

const missing = () => NEEDS.filter((need) => !need.find());
let absent = missing();

if (absent.length > 0) {
  const packages = absent.map((need) => need.debian);
  const list = absent.map((need) => `  - ${need.what} (Debian package ${need.debian}), for ${need.usedBy}`).join('\n');
  const aptGet = onPath('apt-get');
  if (!asRoot || !aptGet) {
    console.error(
      `npm test needs servers that are not installed:\n${list}\n` +
        `Install them, then run npm test again:\n  sudo apt-get install -y ${packages.join(' ')}\n` +
        (asRoot
          ? "(apt-get is not on the PATH here: install them with this system's package manager.)\n"
          : '(Run npm test as root and it installs them itself, as CI does.)\n'),
    );
    process.exit(1);
  }
  console.log(`npm test: installing ${packages.join(', ')} from Debian's packages (the tests need them):\n${list}`);
  const aptEnv = { ...env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync(aptGet, ['update', '-qq'], { stdio: 'inherit', env: aptEnv });
  execFileSync(aptGet, ['install', '-y', '-qq', ...packages], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: aptEnv,
  });
  if (packages.includes('postgresql')) {
    // The cluster Debian creates and starts is not used: the tests start private servers.
    const service = onPath('service');
    try {
      if (service) execFileSync(service, ['postgresql', 'stop'], { stdio: 'ignore' });
    } catch {
      // nothing was started
    }
  }
  absent = missing();
  if (absent.length > 0) {
    const names = absent.map((need) => need.what).join(', ');
    console.error(`npm test: still missing after apt-get install: ${names}`);
    process.exit(1);
  }
}

for (const need of NEEDS) {
  const found = need.find();
  console.log(`npm test: ${need.what} at ${found}: ${version(need.versionOf(found), need.versionFlag)}`);
}
