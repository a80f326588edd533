import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';

/** A private redis-server (Debian's package; `npm test`'s first step installs it when missing). */
export interface RedisServer {
  readonly port: number;
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  /** Stops the server (as a crash would: nothing is saved). */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty, unless persistent). */
  start(): Promise<void>;
}

/** Resolves once something accepts connections on `port`. */
async function listening(port: number, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = createConnection({ port, host: '127.0.0.1' }, () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not listen on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Starts a redis-server on a free loopback port. Without persistence by default; `persistent`
 * keeps its data in an append-only file (written at every command), so that a restart finds it
 * again, as a production Redis would.
 */
export async function startRedisServer({ persistent = false } = {}): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'redis-'));
  const persistence = persistent
    ? ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir]
    : ['--save', '', '--appendonly', 'no'];
  let child: ChildProcess | undefined;
  const server: RedisServer = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', ...persistence], {
        stdio: 'ignore',
      });
      await listening(port);
    },
    async stop() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve());
        running.kill('SIGKILL');
      });
    },
  };
  await server.start();
  return server;
}
