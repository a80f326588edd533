// The cost per call of the caller's identity downstream: a `rest.apis` operation called with the
// host's own credential (`credential: 'service'`, a static bearer) against the same operation
// called as the caller (`credential: 'token-exchange'` at the desk's own authorization server:
// the token for the API is exchanged once and then taken from the cache), in one run. One desk
// (dist/src/main.js, AUTH_MODE=facade, stateless, no audit sink) imports one REST stub twice, as
// `svc_ping` and `xchg_ping`; the caller holds a token of the desk's authorization server, got by
// the JWT bearer grant with an ID-JAG this script signs as the trusted IdP. Each round, in
// rotating order: p50 with one connection (`wrk -c1`), then throughput with 30 (`wrk -c30`) and the
// desk's CPU per request (utime + stime from /proc).
//
//   npm run build && node test/bench/downstream-identity.mjs     (DOWNSTREAM_ROUNDS=4 DOWNSTREAM_SECONDS=6)
import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DESK = join(root, 'dist', 'src', 'main.js');
const ROUNDS = Number(process.env.DOWNSTREAM_ROUNDS ?? 4);
const SECONDS = Number(process.env.DOWNSTREAM_SECONDS ?? 6);
const DESK_PORT = 3993;
const API_PORT = 3994;
const desk = `http://127.0.0.1:${DESK_PORT}`;
const api = `http://127.0.0.1:${API_PORT}`;

const cpuTicks = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
};
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function wrk(script, connections) {
  const run = spawnSync('wrk', ['-t1', `-c${connections}`, `-d${SECONDS}s`, '--latency', '-s', script, `${desk}/mcp`], {
    encoding: 'utf8',
  });
  if (run.status !== 0 || /Non-2xx/.test(run.stdout)) throw new Error(`wrk failed: ${run.stderr || run.stdout}`);
  const [, value, unit] = /50%\s+([\d.]+)(us|ms|s)/.exec(run.stdout);
  return {
    requests: Number(/(\d+) requests in/.exec(run.stdout)[1]),
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(run.stdout)[1]),
    p50: Number(value) * { us: 0.001, ms: 1, s: 1000 }[unit],
  };
}

async function ready(url) {
  for (let attempt = 0; attempt < 300; attempt++) {
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`nothing ready at ${url}`);
}

// The trusted IdP: a key only this script holds, its JWKS served here (read once by the desk).
const { privateKey, publicKey } = await generateKeyPair('ES256');
const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'ES256', use: 'sig' };
const idp = createServer((_req, res) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })),
);
await new Promise((resolve) => idp.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${idp.address().port}`;

// The REST API: one GET operation answering at once, in a process of its own.
const stub = spawn(
  process.execPath,
  [
    '-e',
    `const doc = JSON.stringify({ openapi: '3.0.3', info: { title: 'stub', version: '1' }, paths: { '/ping': { get: { operationId: 'ping', responses: { 200: { description: 'pong', content: { 'application/json': { schema: { type: 'object' } } } } } } } } });
     require('node:http').createServer((req, res) => {
       if (req.url === '/openapi.json') return res.writeHead(200, { 'content-type': 'application/json' }).end(doc);
       res.writeHead(req.headers.authorization ? 200 : 401, { 'content-type': 'application/json' }).end('{"pong":true}');
     }).listen(${API_PORT}, '127.0.0.1');`,
  ],
  { stdio: 'ignore' },
);
const directory = mkdtempSync(join(tmpdir(), 'downstream-bench-'));
const apis = join(directory, 'apis.json');
const common = { document: `${api}/openapi.json`, baseUrl: api };
writeFileSync(
  apis,
  JSON.stringify({
    apis: [
      { name: 'svc', prefix: 'svc_', ...common, credentials: { bearer: 'the-host-s-own-token' } },
      { name: 'xchg', prefix: 'xchg_', ...common, credential: 'token-exchange' },
    ],
  }),
);
let server;
try {
  await ready(`${api}/openapi.json`);
  server = spawn(process.execPath, [DESK], {
    env: {
      ...process.env,
      PORT: String(DESK_PORT),
      MCP_MODE: 'stateless',
      AUTH_MODE: 'facade',
      MCP_RESOURCE_URL: `${desk}/mcp`,
      IDP_ISSUER: issuer,
      IDP_CLIENT_ID: 'bench',
      IDP_CLIENT_SECRET: 'bench-secret',
      IDP_TRUSTED_ISSUER: issuer,
      IDP_TRUSTED_JWKS_URI: `${issuer}/jwks`,
      REST_APIS_FILE: apis,
      AUDIT_SINK: 'off',
      THROTTLE_LIMIT: '100000000',
      LOG_LEVEL: 'error',
    },
    stdio: 'ignore',
  });
  await ready(`${desk}/health/ready`);
  // The caller's token: a client registers, the IdP's ID-JAG is redeemed at the desk's token endpoint.
  const client = await (
    await fetch(`${desk}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'bench', redirect_uris: ['http://127.0.0.1:1/cb'] }),
    })
  ).json();
  const assertion = await new SignJWT({ resource: `${desk}/mcp`, client_id: client.client_id, scope: 'tickets:read' })
    .setProtectedHeader({ alg: 'ES256', kid: 'bench', typ: 'oauth-id-jag+jwt' })
    .setIssuer(issuer)
    .setSubject('alice')
    .setAudience(desk)
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(privateKey);
  const { access_token: token } = await (
    await fetch(`${desk}/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }),
    })
  ).json();
  const call = (name) =>
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {} } });
  const script = (name) => {
    const file = join(directory, `${name}.lua`);
    writeFileSync(
      file,
      [
        'wrk.method = "POST"',
        `wrk.body = [==[${call(name)}]==]`,
        'wrk.headers["Content-Type"] = "application/json"',
        'wrk.headers["Accept"] = "application/json, text/event-stream"',
        'wrk.headers["MCP-Protocol-Version"] = "2025-11-25"',
        `wrk.headers["Authorization"] = "Bearer ${token}"`,
      ].join('\n'),
    );
    return file;
  };
  const variants = { service: 'svc_ping', 'token-exchange (cached)': 'xchg_ping' };
  for (const [name, tool] of Object.entries(variants)) {
    const answer = await fetch(`${desk}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        authorization: `Bearer ${token}`,
      },
      body: call(tool),
    }).then((r) => r.json());
    if (answer?.result?.isError === true || !JSON.stringify(answer.result).includes('pong'))
      throw new Error(`${name}: ${JSON.stringify(answer)}`);
  }
  const names = Object.keys(variants);
  const samples = Object.fromEntries(names.map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    // Each variant takes each place in the order in turn: the machine's drift falls on both alike.
    const order = names.map((_, i) => names[(i + round) % names.length]);
    for (const name of order) {
      const file = script(variants[name]);
      const latency = wrk(file, 1);
      const before = cpuTicks(server.pid);
      const load = wrk(file, 30);
      const sample = {
        p50: latency.p50,
        rps: load.rps,
        cpu: ((cpuTicks(server.pid) - before) * 10_000) / load.requests,
      };
      samples[name].push(sample);
      console.log(
        `${name}: p50 ${sample.p50.toFixed(3)} ms (1 connection), ${sample.rps.toFixed(0)} req/s (30), desk CPU ${sample.cpu.toFixed(1)} µs per call`,
      );
    }
  }
  const summary = (name) => ({
    p50: median(samples[name].map((s) => s.p50)),
    rps: median(samples[name].map((s) => s.rps)),
    cpu: median(samples[name].map((s) => s.cpu)),
  });
  const service = summary('service');
  const exchange = summary('token-exchange (cached)');
  console.log(
    `median: service p50 ${service.p50.toFixed(3)} ms, ${service.rps.toFixed(0)} req/s, ${service.cpu.toFixed(1)} µs CPU per call; ` +
      `token-exchange (cached) p50 ${exchange.p50.toFixed(3)} ms, ${exchange.rps.toFixed(0)} req/s, ${exchange.cpu.toFixed(1)} µs CPU per call: ` +
      `${(exchange.p50 - service.p50).toFixed(3)} ms more at p50, ${(exchange.cpu - service.cpu).toFixed(1)} µs more CPU per call, ` +
      `${((100 * exchange.rps) / service.rps).toFixed(0)} % of the throughput`,
  );
} finally {
  server?.kill();
  stub.kill();
  idp.close();
}
