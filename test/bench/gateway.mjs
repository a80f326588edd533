// An upstream tool called through the gateway against the same tool called on the upstream
// directly, in one run. Three bench hosts (apps/bench): the upstream, and two gateways federating
// it as `up` (its `add` becomes `up_add`), one speaking 2025-11-25 with it and one 2026-07-28
// (what `auto` negotiates with our own host). Each round, in rotating order:
//   - latency: one connection (`wrk -c1`), so the p50 is the time one call takes with no queue:
//     the gateway's p50 minus the direct p50 is what the extra hop adds;
//   - throughput: 30 connections (`wrk -c30`), and the server CPU per request of each process
//     (utime + stime from /proc), which says what bounds the ratio on this 2-core machine.
//
//   npm run build && node test/bench/gateway.mjs     (GATEWAY_ROUNDS=4 GATEWAY_SECONDS=6)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const entry = join(root, 'dist', 'apps', 'bench', 'src', 'main.js');
const ROUNDS = Number(process.env.GATEWAY_ROUNDS ?? 4);
const SECONDS = Number(process.env.GATEWAY_SECONDS ?? 6);
const UPSTREAM_PORT = 3996;
/** The gateways, by the revision each speaks with the upstream. */
const GATEWAYS = {
  'gateway 2025': { port: 3997, protocol: '2025-11-25' },
  'gateway 2026': { port: 3998, protocol: '2026-07-28' },
};

const cpuTicks = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
};
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** `wrk`'s "50%" latency line, in ms. */
function p50Ms(output) {
  const [, value, unit] = /50%\s+([\d.]+)(us|ms|s)/.exec(output);
  return Number(value) * { us: 0.001, ms: 1, s: 1000 }[unit];
}

function wrk(url, script, connections) {
  const run = spawnSync('wrk', ['-t1', `-c${connections}`, `-d${SECONDS}s`, '--latency', '-s', script, url], {
    encoding: 'utf8',
  });
  if (run.status !== 0 || /Non-2xx/.test(run.stdout)) throw new Error(`wrk failed: ${run.stderr || run.stdout}`);
  return {
    requests: Number(/(\d+) requests in/.exec(run.stdout)[1]),
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(run.stdout)[1]),
    p50: p50Ms(run.stdout),
  };
}

function start(port, env) {
  return spawn(process.execPath, [entry], { env: { ...process.env, ...env, PORT: String(port) }, stdio: 'ignore' });
}

async function ready(port) {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (
      await fetch(`http://127.0.0.1:${port}/health/ready`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`nothing ready on port ${port}`);
}

const directory = mkdtempSync(join(tmpdir(), 'gateway-bench-'));
const call = (name) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: { a: 2, b: 3 } },
});
const script = (name) => {
  const file = join(directory, `${name}.lua`);
  writeFileSync(
    file,
    [
      'wrk.method = "POST"',
      `wrk.body = [==[${JSON.stringify(call(name))}]==]`,
      'wrk.headers["Content-Type"] = "application/json"',
      'wrk.headers["Accept"] = "application/json, text/event-stream"',
      'wrk.headers["MCP-Protocol-Version"] = "2025-11-25"',
    ].join('\n'),
  );
  return file;
};

const upstream = start(UPSTREAM_PORT, {});
const gateways = {};
try {
  await ready(UPSTREAM_PORT);
  for (const [name, { port, protocol }] of Object.entries(GATEWAYS))
    gateways[name] = start(port, {
      BENCH_UPSTREAM_URL: `http://127.0.0.1:${UPSTREAM_PORT}/mcp`,
      BENCH_UPSTREAM_PROTOCOL: protocol,
    });
  for (const { port } of Object.values(GATEWAYS)) await ready(port);
  const variants = {
    direct: { url: `http://127.0.0.1:${UPSTREAM_PORT}/mcp`, script: script('add'), tool: 'add' },
    ...Object.fromEntries(
      Object.entries(GATEWAYS).map(([name, { port }]) => [
        name,
        { url: `http://127.0.0.1:${port}/mcp`, script: script('up_add'), tool: 'up_add', process: gateways[name] },
      ]),
    ),
  };
  for (const [name, { url, tool }] of Object.entries(variants)) {
    const answer = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify(call(tool)),
    }).then((r) => r.json());
    if (answer?.result?.content?.[0]?.text !== '5') throw new Error(`${name}: ${JSON.stringify(answer)}`);
  }
  const names = Object.keys(variants);
  const samples = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    // Each variant takes each place in the order in turn: the machine's drift falls on all alike.
    const order = names.map((_, i) => names[(i + round) % names.length]);
    for (const name of order) {
      const { url, script, process: gateway } = variants[name];
      const latency = wrk(url, script, 1);
      const before = { upstream: cpuTicks(upstream.pid), gateway: gateway && cpuTicks(gateway.pid) };
      const load = wrk(url, script, 30);
      const perRequest = (pid, ticks) => ((cpuTicks(pid) - ticks) * 10_000) / load.requests;
      const sample = {
        p50: latency.p50,
        rps: load.rps,
        upstreamCpu: perRequest(upstream.pid, before.upstream),
        gatewayCpu: gateway ? perRequest(gateway.pid, before.gateway) : 0,
      };
      samples[name].push(sample);
      console.log(
        `${name}: p50 ${sample.p50.toFixed(3)} ms (1 connection), ${sample.rps.toFixed(0)} req/s (30), ` +
          `CPU per request: upstream ${sample.upstreamCpu.toFixed(1)} µs, gateway ${sample.gatewayCpu.toFixed(1)} µs`,
      );
    }
  }
  const summary = (name) => ({
    p50: median(samples[name].map((s) => s.p50)),
    rps: median(samples[name].map((s) => s.rps)),
    upstreamCpu: median(samples[name].map((s) => s.upstreamCpu)),
    gatewayCpu: median(samples[name].map((s) => s.gatewayCpu)),
  });
  const direct = summary('direct');
  console.log(
    `median: direct p50 ${direct.p50.toFixed(3)} ms, ${direct.rps.toFixed(0)} req/s, upstream CPU ${direct.upstreamCpu.toFixed(1)} µs`,
  );
  for (const name of Object.keys(GATEWAYS)) {
    const through = summary(name);
    console.log(
      `median: ${name} p50 ${through.p50.toFixed(3)} ms, ${through.rps.toFixed(0)} req/s: adds ${(through.p50 - direct.p50).toFixed(3)} ms ` +
        `at p50 and keeps ${((100 * through.rps) / direct.rps).toFixed(0)} % of the throughput; per relayed call the ` +
        `gateway process spends ${through.gatewayCpu.toFixed(1)} µs of CPU and the upstream ${through.upstreamCpu.toFixed(1)} µs`,
    );
  }
} finally {
  for (const gateway of Object.values(gateways)) gateway.kill();
  upstream.kill();
}
