// What the SIEM sinks cost per call: server CPU per stateless `tools/call` on the bench host with
// the audit trail (JSON lines) alone, and with the trail forwarding every record to Debian's
// rsyslog over TLS (RFC 5425) and to a signed HTTPS webhook receiver as well. The two servers
// run one after the other, in ABBA order over the rounds, each pinned to core 0 with wrk on core 1
// (the method of abba-cpu.mjs); each measurement counts the server's CPU from before wrk until the
// sinks have caught up (readiness says nothing waits in their spools), so the delivery of every
// record is in it. rsyslog and the receiver run on core 1, their own CPU not counted.
//
//   npm run build && node test/bench/audit-siem.mjs     (SIEM_ROUNDS=4 SIEM_SECONDS=8)
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const ROUNDS = Number(process.env.SIEM_ROUNDS ?? 4);
const SECONDS = Number(process.env.SIEM_SECONDS ?? 8);
const SECRET = 'bench-webhook-secret-of-32-characters';
const dir = mkdtempSync(join(tmpdir(), 'audit-siem-bench-'));

const freePort = () =>
  new Promise((resolve) => {
    const probe = createTcpServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

// A private CA and a certificate for localhost.
const file = (name) => join(dir, name);
const openssl = (...args) => execFileSync('openssl', args, { stdio: 'ignore' });
openssl(
  'req',
  '-x509',
  '-newkey',
  'rsa:2048',
  '-nodes',
  '-days',
  '2',
  '-subj',
  '/CN=bench CA',
  '-keyout',
  file('ca.key'),
  '-out',
  file('ca.pem'),
);
openssl(
  'req',
  '-newkey',
  'rsa:2048',
  '-nodes',
  '-subj',
  '/CN=localhost',
  '-keyout',
  file('server.key'),
  '-out',
  file('server.csr'),
);
writeFileSync(file('ext.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
openssl(
  'x509',
  '-req',
  '-in',
  file('server.csr'),
  '-CA',
  file('ca.pem'),
  '-CAkey',
  file('ca.key'),
  '-CAcreateserial',
  '-days',
  '2',
  '-extfile',
  file('ext.cnf'),
  '-out',
  file('server.pem'),
);

const syslogPort = await freePort();
writeFileSync(
  file('rsyslog.conf'),
  `global(workDirectory="${dir}" maxMessageSize="64k" defaultNetstreamDriver="gtls"
  defaultNetstreamDriverCAFile="${file('ca.pem')}" defaultNetstreamDriverCertFile="${file('server.pem')}" defaultNetstreamDriverKeyFile="${file('server.key')}")
module(load="imtcp" streamDriver.name="gtls" streamDriver.mode="1" streamDriver.authMode="anon")
input(type="imtcp" port="${syslogPort}" address="127.0.0.1")
action(type="omfile" file="${file('siem.log')}" template="RSYSLOG_SyslogProtocol23Format")
`,
);
const rsyslogd = spawn(
  'taskset',
  ['-c', '1', '/usr/sbin/rsyslogd', '-n', '-f', file('rsyslog.conf'), '-i', file('rsyslogd.pid')],
  { stdio: 'ignore' },
);
let received = 0;
const receiver = createServer(
  { cert: readFileSync(file('server.pem')), key: readFileSync(file('server.key')) },
  (req, res) => {
    req.on('data', (chunk) => (received += chunk.length));
    req.on('end', () => res.writeHead(200).end('{}'));
  },
).listen(0, '127.0.0.1');
await new Promise((resolve) => receiver.once('listening', resolve));
await new Promise((resolve) => setTimeout(resolve, 500));

const call = {
  headers: { 'MCP-Protocol-Version': '2025-11-25' },
  body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } },
  check: (answer) => answer?.result?.content?.[0]?.text === '3',
};
const entry = join(root, 'dist', 'apps', 'bench', 'src', 'main.js');
const servers = {
  'audit trail (JSON lines)': { BENCH_AUDIT_FILE: file('a.jsonl') },
  'audit trail + syslog (TLS) + webhook': {
    BENCH_AUDIT_FILE: file('b.jsonl'),
    BENCH_AUDIT_SYSLOG: `localhost:${syslogPort}`,
    BENCH_AUDIT_CA: file('ca.pem'),
    BENCH_AUDIT_WEBHOOK: `https://localhost:${receiver.address().port}/audit`,
    BENCH_AUDIT_WEBHOOK_SECRET: SECRET,
  },
};
/** utime + stime of a process, in clock ticks (1/100 s). */
const cpuTicks = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
};
const script = file('call.lua');
writeFileSync(
  script,
  [
    'wrk.method = "POST"',
    `wrk.body = [==[${JSON.stringify(call.body)}]==]`,
    'wrk.headers["Content-Type"] = "application/json"',
    'wrk.headers["Accept"] = "application/json, text/event-stream"',
    'wrk.headers["MCP-Protocol-Version"] = "2025-11-25"',
  ].join('\n'),
);
const wrk = (url, seconds) => {
  const run = spawnSync('taskset', ['-c', '1', 'wrk', '-t1', '-c30', `-d${seconds}s`, '-s', script, url], {
    encoding: 'utf8',
  });
  if (run.status !== 0 || /Non-2xx/.test(run.stdout)) throw new Error(`wrk: ${run.stderr || run.stdout}`);
  return {
    requests: Number(/(\d+) requests in/.exec(run.stdout)[1]),
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(run.stdout)[1]),
  };
};
/** Resolves once readiness answers and no audit record waits (in the trail or a forwarding sink's spool). */
const caughtUp = async (base) => {
  for (let attempt = 0; attempt < 600; attempt++) {
    const body = await fetch(`${base}/health/ready`).then(
      (r) => r.json(),
      () => undefined,
    );
    const details = Object.entries(body?.details ?? {});
    const waiting = details.some(
      ([name, d]) => name.startsWith('audit') && ((d.spooled ?? 0) > 0 || (d.queued ?? 0) > 0),
    );
    if (body && !waiting) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the sinks did not catch up');
};
/** One measurement: a server started with `env`, warmed up, then `seconds` of calls and the catching up. */
async function measure(env) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = spawn('taskset', ['-c', '0', process.execPath, entry], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: 'ignore',
  });
  try {
    await caughtUp(base);
    const answer = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...call.headers },
      body: JSON.stringify(call.body),
    }).then((r) => r.json());
    if (!call.check(answer)) throw new Error(`unexpected answer ${JSON.stringify(answer)}`);
    wrk(`${base}/mcp`, 3);
    await caughtUp(base);
    const before = cpuTicks(server.pid);
    const { requests, rps } = wrk(`${base}/mcp`, SECONDS);
    await caughtUp(base);
    return { cpu: ((cpuTicks(server.pid) - before) * 10_000) / requests, rps };
  } finally {
    server.kill();
  }
}
const samples = Object.fromEntries(Object.keys(servers).map((name) => [name, { cpu: [], rps: [] }]));
try {
  const names = Object.keys(servers);
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of round % 2 === 0 ? names : [...names].reverse()) {
      const { cpu, rps } = await measure(servers[name]);
      console.log(`${name}: ${cpu.toFixed(1)} µs of server CPU per call, ${rps.toFixed(0)} req/s`);
      samples[name].cpu.push(cpu);
      samples[name].rps.push(rps);
    }
  }
} finally {
  rsyslogd.kill();
  receiver.close();
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const lines = readFileSync(file('siem.log'), 'utf8').split('\n').filter(Boolean).length;
console.log('\n| server | µs of server CPU per call (median) | req/s (median) |\n|---|---|---|');
for (const name of Object.keys(servers))
  console.log(`| ${name} | ${median(samples[name].cpu).toFixed(1)} | ${median(samples[name].rps).toFixed(0)} |`);
const [alone, forwarded] = Object.keys(servers).map((name) => median(samples[name].cpu));
console.log(
  `\nThe two SIEM sinks cost ${(forwarded - alone).toFixed(1)} µs of server CPU per call; rsyslog wrote ${lines} records, the webhook receiver took ${(received / 2 ** 20).toFixed(1)} MiB.`,
);
