// Measures requests against one running server in ABBA order (so warm-up and drift fall on every
// variant alike): wrk drives each variant under `taskset -c 1` while the server runs under
// `taskset -c 0`, and the server's own CPU time (utime + stime from /proc) is divided by the
// requests wrk completed. Unlike req/s, that does not depend on which of the two processes is the
// bottleneck. Linux only; used by era-cpu.mjs, rest-bridge.mjs and compare-cpu.mjs.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** utime + stime of a process, in clock ticks (1/100 s). */
export function cpuTicks(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** A wrk script POSTing `body` as JSON with `headers`. */
export function luaScript(directory, name, { headers, body }) {
  const all = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers };
  const lines = [
    'wrk.method = "POST"',
    `wrk.body = [==[${JSON.stringify(body)}]==]`,
    ...Object.entries(all).map(([key, value]) => `wrk.headers[${JSON.stringify(key)}] = ${JSON.stringify(value)}`),
  ];
  const file = join(directory, `${name.replace(/[^\w.-]/g, '-')}.lua`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

export function wrk(url, script, seconds) {
  const run = spawnSync('taskset', ['-c', '1', 'wrk', '-t1', '-c30', `-d${seconds}s`, '-s', script, url], {
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`wrk failed: ${run.stderr || run.stdout}`);
  if (/Non-2xx/.test(run.stdout)) throw new Error(`non-2xx answers:\n${run.stdout}`);
  return {
    requests: Number(/(\d+) requests in/.exec(run.stdout)[1]),
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(run.stdout)[1]),
  };
}

export async function waitUntilReady(readyUrl) {
  for (let attempt = 0; attempt < 200; attempt++) {
    const ready = await fetch(readyUrl).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the server did not become ready at ${readyUrl}`);
}

export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Starts `entry` under `taskset -c 0` with `env`, then measures each of `variants`
 * (`{ name: { headers, body, check? } }`, `check(answer)` run once on a first answer) for
 * `rounds` ABBA rounds of `seconds`, printing each measurement.
 * @returns the median server CPU (µs per request) and req/s of each variant
 */
export async function measureAbba({
  entry,
  env,
  port,
  path = '/mcp',
  readyPath = '/health/ready',
  variants,
  rounds,
  seconds,
}) {
  const directory = mkdtempSync(join(tmpdir(), 'abba-cpu-'));
  const url = `http://127.0.0.1:${port}${path}`;
  const scripts = Object.fromEntries(
    Object.entries(variants).map(([name, request]) => [name, luaScript(directory, name, request)]),
  );
  const server = spawn('taskset', ['-c', '0', process.execPath, entry], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: 'ignore',
  });
  try {
    await waitUntilReady(`http://127.0.0.1:${port}${readyPath}`);
    for (const [name, { headers, body, check }] of Object.entries(variants)) {
      const answer = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(body),
      }).then((response) => response.json());
      if (check && !check(answer))
        throw new Error(`${name}: unexpected answer ${JSON.stringify(answer).slice(0, 500)}`);
      wrk(url, scripts[name], 3); // warm-up
    }
    const order = Object.keys(variants);
    const samples = Object.fromEntries(order.map((name) => [name, { cpu: [], rps: [] }]));
    for (let round = 0; round < rounds; round++) {
      for (const name of round % 2 === 0 ? order : [...order].reverse()) {
        // taskset execs node, so the child's pid is the server's.
        const before = cpuTicks(server.pid);
        const { requests, rps } = wrk(url, scripts[name], seconds);
        const microseconds = ((cpuTicks(server.pid) - before) * 10_000) / requests;
        samples[name].cpu.push(microseconds);
        samples[name].rps.push(rps);
        console.log(`${name}: ${microseconds.toFixed(1)} µs of server CPU per request, ${rps.toFixed(0)} req/s`);
      }
    }
    return Object.fromEntries(
      order.map((name) => [name, { cpu: median(samples[name].cpu), rps: median(samples[name].rps) }]),
    );
  } finally {
    server.kill();
  }
}
