import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';

/** Where Debian's PostgreSQL server binaries are (`.ci/run` installs the `postgresql` package). */
function binDir(): string {
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
    if (existsSync(join(dir, 'initdb'))) return dir;
  } catch {
    // fall through to Debian's layout
  }
  const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a)) : [];
  const dir = versions.map((version) => `/usr/lib/postgresql/${version}/bin`).find((candidate) => existsSync(join(candidate, 'initdb')));
  if (!dir) throw new Error('PostgreSQL server binaries not found: install Debian\'s postgresql package (apt-get install postgresql), as .ci/run does');
  return dir;
}

/** PostgreSQL refuses to run as root: as root, run it as Debian's `postgres` user. */
function asServerUser(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

/**
 * A private, throw-away PostgreSQL server for one test file: its own data directory and port,
 * `stop()` to kill it as a crash would and `start()` to bring it back on the same data.
 */
export class PostgresServer {
  private process: ChildProcess | undefined;

  private constructor(
    private readonly bin: string,
    private readonly dataDir: string,
    private readonly socketDir: string,
    readonly port: number,
  ) {}

  static async create(): Promise<PostgresServer> {
    const bin = binDir();
    const root = mkdtempSync(join(tmpdir(), 'mcp-pg-'));
    chmodSync(root, 0o777);
    const server = new PostgresServer(bin, join(root, 'data'), root, await freePort());
    const [command, args] = asServerUser(join(bin, 'initdb'), ['-D', server.dataDir, '-U', 'mcp', '--auth=trust', '--no-sync', '-E', 'UTF8']);
    execFileSync(command, args, { stdio: 'pipe' });
    await server.start();
    return server;
  }

  get url(): string {
    return `postgres://mcp@127.0.0.1:${this.port}/postgres`;
  }

  async start(): Promise<void> {
    const [command, args] = asServerUser(join(this.bin, 'postgres'), [
      '-D', this.dataDir, '-p', String(this.port), '-k', this.socketDir, '-h', '127.0.0.1', '-c', 'fsync=off', '-c', 'full_page_writes=off',
    ]);
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    child.stderr?.on('data', (chunk) => (log = (log + chunk).slice(-4_000)));
    this.process = child;
    const deadline = Date.now() + 20_000;
    while (!(await accepts(this.port))) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`PostgreSQL did not start on port ${this.port}:\n${log}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Accepting TCP is not yet accepting queries: wait for the server to say so.
    while (!log.includes('ready to accept connections')) {
      if (Date.now() > deadline) throw new Error(`PostgreSQL never became ready:\n${log}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Stops the server at once, without a checkpoint (`pg_ctl stop -m immediate`: a crash, to its clients and its data). */
  async stop(): Promise<void> {
    const child = this.process;
    this.process = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const [command, args] = asServerUser(join(this.bin, 'pg_ctl'), ['stop', '-D', this.dataDir, '-m', 'immediate', '-w']);
    execFileSync(command, args, { stdio: 'pipe' });
    await exited;
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.socketDir, { recursive: true, force: true });
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.end(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}
