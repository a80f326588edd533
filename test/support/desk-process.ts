import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';

const MAIN = join(__dirname, '..', '..', 'dist', 'src', 'main.js');

/** A support-desk host started as `npm start` starts it: a process of its own. */
export interface DeskProcess {
  port: number;
  /** Its process id (to read its memory from /proc). */
  pid: number;
  /** What it printed so far (stdout and stderr), for a failure's message. */
  output(): string;
  stop(): Promise<void>;
  /** Kills it as a crash would (SIGKILL: no drain, no goodbye). */
  kill(): Promise<void>;
}

/**
 * Starts `node dist/src/main.js` on a free loopback port (or `port`: a replica restarted where a
 * balancer expects it) with `env`; resolves once it is ready.
 */
export async function startDeskProcess(
  env: Record<string, string>,
  { port = 0 }: { port?: number } = {},
): Promise<DeskProcess> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first`);
  port ||= await freePort();
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      // Virtual servers stored apart from the checkout's state/ (which `npm start` uses).
      VIRTUAL_SERVERS_FILE: join(tmpdir(), `desk-virtual-servers-${process.pid}-${port}.json`),
      CATALOG_PINS_FILE: join(tmpdir(), `desk-catalog-pins-${process.pid}-${port}.json`),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-20_000));
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const desk: DeskProcess = {
    port,
    pid: child.pid!,
    output: () => output,
    stop: () => stop(child),
    kill: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
  try {
    await ready(`http://127.0.0.1:${port}/health/ready`, child);
  } catch (error) {
    await desk.stop();
    throw new Error(`${(error as Error).message}\n${output}`);
  }
  return desk;
}

/** Polls a readiness URL until it answers 200 (a process that exits fails at once). */
export async function ready(url: string, child: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the process exited (${child.exitCode ?? child.signalCode}) before ${url} was ready`);
    const status = await fetch(url, { headers: { connection: 'close' } }).then(
      async (response) => (await response.arrayBuffer(), response.status),
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`${url} was not ready within ${timeoutMs} ms (last status ${status})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Ends a child process (SIGTERM, then SIGKILL after 5 s) and waits for it. */
export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
