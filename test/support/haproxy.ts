import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';
import { ready, stop } from './desk-process';

/** The response header naming the backend server that answered (set by the proxy). */
export const SERVED_BY = 'x-served-by';

/** A running HAProxy (Debian's package, installed by `npm test`'s first step). */
export interface Haproxy {
  port: number;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts HAProxy on a free loopback port in front of `backends` (name → port): HTTP mode,
 * `balance roundrobin`, no stickiness of any kind, so each request goes to the next server
 * whatever connection, session or request it follows. Every response names its server in
 * `X-Served-By`. Resolves once the proxy answers `readyPath` through a backend. With
 * `healthChecks`, each server's `readyPath` is checked every 300 ms and a server that fails it
 * twice in a row is left out until it passes again. With `forwardFor`, each request carries the
 * client's address appended to `X-Forwarded-For` (`option forwardfor`), as docker/haproxy.cfg does.
 */
export async function startHaproxy(
  backends: Record<string, number>,
  readyPath = '/health/ready',
  { healthChecks = false, forwardFor = false } = {},
): Promise<Haproxy> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'haproxy-'));
  const config = join(dir, 'haproxy.cfg');
  writeFileSync(
    config,
    [
      'global',
      '  maxconn 256',
      'defaults',
      '  mode http',
      '  timeout connect 5s',
      '  timeout client 60s',
      '  timeout server 60s',
      ...(forwardFor ? ['  option forwardfor'] : []),
      'frontend mcp',
      `  bind 127.0.0.1:${port}`,
      '  default_backend desks',
      'backend desks',
      '  balance roundrobin',
      `  http-response set-header ${SERVED_BY} %s`,
      // With health checks a server that stops answering readiness is left out (and a request
      // sent to one that just died goes to another), as a production balancer does.
      // A check may take a while on a busy machine: only a refusal or two slow ones in a row count.
      // A request refused before anything ran (a replica draining answers 503; one that is gone
      // refuses the connection) is sent to another: what docker/haproxy.cfg does in production.
      ...(healthChecks
        ? [
            `  option httpchk GET ${readyPath}`,
            '  timeout check 3s',
            '  retries 3',
            '  option redispatch 1',
            '  retry-on conn-failure empty-response 503',
          ]
        : []),
      ...Object.entries(backends).map(
        ([name, backend]) =>
          `  server ${name} 127.0.0.1:${backend}${healthChecks ? ' check inter 300 fall 2 rise 1' : ''}`,
      ),
      '',
    ].join('\n'),
  );
  // -db: stay in the foreground, so that the test owns the process and its output.
  const child = spawn(haproxyBinary(), ['-db', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-10_000));
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const proxy: Haproxy = {
    port,
    output: () => output,
    stop: async () => {
      await stop(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await ready(`http://127.0.0.1:${port}${readyPath}`, child, 10_000);
  } catch (error) {
    await proxy.stop();
    throw new Error(`${(error as Error).message}\n${output}`);
  }
  return proxy;
}

/** haproxy on the PATH, else where Debian puts it (/usr/sbin is not on every user's PATH). */
function haproxyBinary(): string {
  for (const candidate of ['haproxy', '/usr/sbin/haproxy']) {
    try {
      execFileSync(candidate, ['-v'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // not this one
    }
  }
  throw new Error('haproxy is not installed: `sudo apt-get install -y haproxy` (npm test installs it as root)');
}
