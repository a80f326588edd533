// Cold start: spawn → the answer to the first tools/call over stdio, and the resident memory of
// the idle host after it, for catalogs of 100 and 1,000 tools; and the same for a bare Nest
// application context (what Nest alone costs).
//   npm run build && node test/bench/cold-start.mjs [runs=5]
// Each figure is the median of `runs` fresh processes. The CPU column (user + system time of the
// process when it answered) says what start-up costs even when other processes slow the wall clock.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const RUNS = Number(process.argv[2] ?? 5);
const SUBJECT = join(root, 'dist', 'apps', 'bench', 'src', 'cold-start.main.js');

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const rssMb = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
/** User + system CPU ms of a process (fields 14 and 15 of /proc/<pid>/stat, in 10 ms ticks). */
const cpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

/** One fresh host: ms from spawn to the first tools/call's answer, and its RSS 1 s later. */
function once(tools) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const host = spawn(process.execPath, [SUBJECT], {
      cwd: root,
      env: { ...process.env, COLD_TOOLS: String(tools) },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    const send = (message) => host.stdin.write(`${JSON.stringify(message)}\n`);
    // Sent at once: the host reads them as soon as it serves stdio.
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'cold', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'tool_1', arguments: { id: 'x', limit: 3 } } });
    host.stdout.setEncoding('utf8').on('data', (chunk) => {
      out += chunk;
      if (!out.includes('"id":2')) return;
      const ms = performance.now() - started;
      const cpu = cpuMs(host.pid);
      if (!out.includes('tool 1: x')) reject(new Error(`unexpected answer: ${out}`));
      setTimeout(() => {
        const rss = rssMb(host.pid);
        host.stdin.end();
        host.once('exit', () => resolve({ ms, cpu, rss }));
      }, 1_000);
    });
    host.once('error', reject);
  });
}

/** A bare Nest application context with one provider: what Nest alone takes to start. */
function nestAlone() {
  return new Promise((resolve, reject) => {
    const script = `require('reflect-metadata');const { Module } = require('@nestjs/common');const { NestFactory } = require('@nestjs/core');
      class M {} Module({})(M); NestFactory.createApplicationContext(M, { logger: false }).then(() => { process.stdout.write('ready'); setInterval(() => {}, 60_000); });`;
    const started = performance.now();
    const host = spawn(process.execPath, ['-e', script], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
    host.stdout.once('data', () => {
      const ms = performance.now() - started;
      const cpu = cpuMs(host.pid);
      setTimeout(() => {
        const rss = rssMb(host.pid);
        host.kill();
        resolve({ ms, cpu, rss });
      }, 1_000);
    });
    host.once('error', reject);
  });
}

const rows = [];
for (const [label, run] of [
  ['Nest alone (application context)', () => nestAlone()],
  ['100 tools', () => once(100)],
  ['1,000 tools', () => once(1_000)],
]) {
  const results = [];
  for (let i = 0; i < RUNS; i++) results.push(await run());
  rows.push({
    label,
    ms: median(results.map((r) => r.ms)),
    cpu: median(results.map((r) => r.cpu)),
    rss: median(results.map((r) => r.rss)),
  });
}
console.log('| | spawn → first tools/call answered | CPU used by then | idle RSS |\n|---|---:|---:|---:|');
for (const row of rows)
  console.log(
    `| ${row.label} | ${(row.ms / 1000).toFixed(2)} s | ${(row.cpu / 1000).toFixed(2)} s | ${row.rss.toFixed(0)} MB |`,
  );
