// What the benchmarks that run several processes share: free ports, a wrk script for the bench
// app's `add` call, and an HAProxy in front of them.
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** A TCP port free on loopback right now. */
export const freePort = () =>
  new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

/**
 * Writes `<directory>/<name>.lua`: wrk sending the bench app's measured call (`tools/call add
 * {a:1,b:2}` as a 2025-11-25 request), with the bench API key when `secure`. @returns its path
 */
export function toolsCallScript(directory, { secure = false } = {}) {
  const file = join(directory, secure ? 'tools-call-secure.lua' : 'tools-call.lua');
  const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } };
  const lines = [
    'wrk.method = "POST"',
    `wrk.body = '${JSON.stringify(body)}'`,
    'wrk.headers["Content-Type"] = "application/json"',
    'wrk.headers["Accept"] = "application/json, text/event-stream"',
    'wrk.headers["MCP-Protocol-Version"] = "2025-11-25"',
    ...(secure ? ['wrk.headers["X-API-Key"] = "bench-key-0123456789"'] : []),
  ];
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/**
 * Starts HAProxy (Debian's package) on `port` in front of `backends` (ports), round-robin with no
 * stickiness; with `healthChecks`, each backend's readiness is checked every 300 ms, one that fails
 * it twice is left out, and a request refused before anything ran (a refused connection, a 503 of
 * a replica draining) is sent to another, as docker/haproxy.cfg does. Its config goes in `directory`.
 */
export function startHaproxy(directory, port, backends, { healthChecks = false } = {}) {
  const config = join(directory, `haproxy-${port}.cfg`);
  writeFileSync(
    config,
    [
      'global',
      '  maxconn 512',
      'defaults',
      '  mode http',
      '  timeout connect 5s',
      '  timeout client 60s',
      '  timeout server 60s',
      'frontend mcp',
      `  bind 127.0.0.1:${port}`,
      '  default_backend hosts',
      'backend hosts',
      '  balance roundrobin',
      ...(healthChecks
        ? [
            '  option httpchk GET /health/ready',
            '  timeout check 3s',
            '  retries 3',
            '  option redispatch 1',
            '  retry-on conn-failure empty-response 503',
          ]
        : []),
      ...backends.map(
        (backend, i) => `  server h${i} 127.0.0.1:${backend}${healthChecks ? ' check inter 300 fall 2 rise 1' : ''}`,
      ),
      '',
    ].join('\n'),
  );
  // Debian puts it in /usr/sbin, which not every user's PATH has.
  return spawn(existsSync('/usr/sbin/haproxy') ? '/usr/sbin/haproxy' : 'haproxy', ['-db', '-f', config], {
    stdio: 'ignore',
  });
}
