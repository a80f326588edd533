import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from './free-port';

/** Where the PostgreSQL server binaries are: `pg_config --bindir`, else Debian's `/usr/lib/postgresql/<newest>/bin`. */
function binDir(): string {
  try {
    const dir = execFileSync('pg_config', ['--bindir'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    if (existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'postgres'))) return dir;
  } catch {
    // no pg_config (or only the client's): fall through to Debian's layout
  }
  const versions = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a))
    : [];
  const dir = versions
    .map((version) => `/usr/lib/postgresql/${version}/bin`)
    .find((candidate) => existsSync(join(candidate, 'initdb')) && existsSync(join(candidate, 'postgres')));
  if (!dir)
    throw new Error(
      "PostgreSQL server binaries (initdb, postgres) not found: install Debian's postgresql package (apt-get install postgresql); npm test does it first when run as root",
    );
  return dir;
}

/** The OS user that runs the server: `postgres` when we are root (PostgreSQL refuses root), else ourselves. */
interface ServerUser {
  uid: number;
  gid: number;
}

function serverUser(): ServerUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const id = (flag: string) =>
      Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error(
      "PostgreSQL refuses to run as root and there is no 'postgres' OS user to run it as: install Debian's postgresql package (it creates the user), or run the tests as another user",
    );
  }
}

const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;
const hasRunuser = (() => {
  let known: boolean | undefined;
  return () => (known ??= ['/usr/sbin/runuser', '/sbin/runuser', '/usr/bin/runuser'].some(existsSync));
})();

/** The command line that runs `command` as the server user (`runuser`, or `su` where there is none). */
function asServerUser(user: ServerUser | undefined, command: string, args: string[]): [string, string[]] {
  if (!user) return [command, args];
  if (hasRunuser()) return ['runuser', ['-u', 'postgres', '--', command, ...args]];
  return ['su', ['postgres', '-s', '/bin/sh', '-c', ['exec', ...[command, ...args].map(quote)].join(' ')]];
}

const running = new Set<PostgresServer>();
let exitHook = false;

/**
 * A private, throw-away PostgreSQL server for one test file: its own data directory (under the
 * system temp dir, owned by the server user), its own loopback port and socket directory, fsync
 * off. `stop()` kills it as a crash would, `start()` brings it back on the same data and port.
 *
 * @example
 * ```ts
 * const server = await PostgresServer.create();
 * const sink = new PostgresAuditSink({ connectionString: server.url });
 * …
 * await server.dispose();
 * ```
 */
export class PostgresServer {
  private process: ChildProcess | undefined;

  private constructor(
    private readonly bin: string,
    private readonly user: ServerUser | undefined,
    private readonly root: string,
    readonly port: number,
  ) {}

  /** `initdb` into a new temp dir, then `start()`. */
  static async create(): Promise<PostgresServer> {
    const bin = binDir();
    const user = serverUser();
    const root = mkdtempSync(join(tmpdir(), 'mcp-pg-'));
    try {
      chmodSync(root, 0o700);
      if (user) chownSync(root, user.uid, user.gid);
      const server = new PostgresServer(bin, user, root, await freePort());
      server.run('initdb', [
        '-D',
        server.dataDir,
        '-U',
        'mcp',
        '--auth=trust',
        '--no-sync',
        '-E',
        'UTF8',
        '--locale=C',
      ]);
      await server.start();
      return server;
    } catch (error) {
      rmSync(root, { recursive: true, force: true });
      throw error;
    }
  }

  /** `postgres://mcp@127.0.0.1:<port>/postgres` (user `mcp`, trust authentication, loopback only). */
  get url(): string {
    return `postgres://mcp@127.0.0.1:${this.port}/postgres`;
  }

  private get dataDir(): string {
    return join(this.root, 'data');
  }

  /** Starts the server on its data dir and port, and resolves once it answers queries. */
  async start(): Promise<void> {
    if (this.process) throw new Error(`PostgreSQL on port ${this.port} is already running`);
    const [command, args] = asServerUser(this.user, join(this.bin, 'postgres'), [
      '-D',
      this.dataDir,
      '-p',
      String(this.port),
      '-h',
      '127.0.0.1',
      '-k',
      this.root,
      // fsync off survives a killed server (only an OS crash loses data); synchronous_commit must
      // stay on, or an immediate stop loses commits the clients were told about.
      '-c',
      'fsync=off',
      '-c',
      'full_page_writes=off',
    ]);
    const child = spawn(command, args, { cwd: this.root, stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    child.stderr?.on('data', (chunk) => (log = (log + chunk).slice(-4_000)));
    let exited = false;
    child.once('exit', () => (exited = true));
    child.once('error', (error) => ((log += `\n${error.message}`), (exited = true)));
    this.process = child;
    running.add(this);
    if (!exitHook) {
      exitHook = true;
      // Last resort when a test run ends without dispose(): no server outlives the test process.
      process.once('exit', () => running.forEach((server) => server.stopNow()));
    }
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (exited) {
        this.process = undefined;
        running.delete(this);
        throw new Error(`PostgreSQL exited while starting on port ${this.port}:\n${log}`);
      }
      if (await answers(this.url)) return;
      if (Date.now() > deadline) {
        this.stopNow();
        throw new Error(`PostgreSQL did not answer on port ${this.port} within 30 s:\n${log}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Stops the server at once, without a checkpoint (`pg_ctl stop -m immediate`: a crash, to its clients and its data). */
  async stop(): Promise<void> {
    const child = this.process;
    if (!child) return;
    const exited =
      child.exitCode !== null || child.signalCode !== null
        ? Promise.resolve()
        : new Promise((resolve) => child.once('exit', resolve));
    this.stopNow();
    await exited;
  }

  /** Stops the server and deletes its data. */
  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.root, { recursive: true, force: true });
  }

  private stopNow(): void {
    const child = this.process;
    this.process = undefined;
    running.delete(this);
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    try {
      this.run('pg_ctl', ['stop', '-D', this.dataDir, '-m', 'immediate', '-w', '-t', '10']);
    } catch {
      child.kill('SIGQUIT'); // the postmaster's own "immediate shutdown" signal (runuser/su pass it on)
    }
  }

  private run(tool: string, args: string[]): void {
    const [command, full] = asServerUser(this.user, join(this.bin, tool), args);
    try {
      execFileSync(command, full, { cwd: this.root, stdio: 'pipe', encoding: 'utf8' });
    } catch (error) {
      const { stderr, stdout, message } = error as { stderr?: string; stdout?: string; message: string };
      throw new Error(`${tool} failed: ${message}\n${stdout ?? ''}${stderr ?? ''}`);
    }
  }
}

/** Whether the server answers a query now (a server still starting refuses connections). */
async function answers(url: string): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * A spec's PostgreSQL stores on one real server, started before its tests and stopped after them
 * with every store made: `make()` gives a store on a table of its own, `make(name)` one on a
 * named table (two stores on one table are two replicas).
 *
 * @example
 * const stores = postgresStores((connectionString, table) => new PostgresAuditStore({ connectionString, table }), 'audit');
 * it('…', async () => { const store = stores.make(); … });
 */
export function postgresStores<Store extends { close(): Promise<void> }>(
  create: (connectionString: string, table: string) => Store,
  tablePrefix: string,
): { make: (table?: string) => Store; url: () => string } {
  let server: PostgresServer | undefined;
  const made: Store[] = [];
  let tables = 0;
  beforeAll(async () => {
    server = await PostgresServer.create();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(made.map((store) => store.close()));
    await server?.dispose();
  });
  return {
    make: (table = `${tablePrefix}_${++tables}`) => {
      const store = create(server!.url, table);
      made.push(store);
      return store;
    },
    url: () => server!.url,
  };
}
