// Runs the official MCP conformance suite against apps/conformance and checks, beyond the
// suite's own verdict, that every passing scenario really reached its fixture (an SDK-style
// server answers an unknown tool with an isError result, which some scenarios accept).
// Prerequisites: `npm run build` (the root `npm test` does it) and test/conformance installed
// (the root postinstall does it). Scenario contracts: SCENARIOS.md and SCENARIOS-2026.md.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, relative } from 'node:path';
import { here, node22, suiteEntry } from './suite.mjs';

const root = join(here, '..', '..');
const output = join(root, 'test-output', 'conformance');
const serverEntry = join(root, 'dist', 'apps', 'conformance', 'src', 'main.js');
const baselineFile = join(here, 'baseline.yml');
const READY_TIMEOUT_MS = 30_000;
const SUITE_TIMEOUT_MS = 5 * 60_000;
const STOP_TIMEOUT_MS = 10_000;

/**
 * The fixtures each scenario calls, as apps/conformance logs them (`kind:name`). Scenarios that
 * only list, or that fail by themselves when their fixture is missing (completion, subscribe:
 * the host answers an unknown prompt or resource with a JSON-RPC error), need no entry.
 */
const FIXTURES = {
  'tools-call-simple-text': ['tool:test_simple_text'],
  'tools-call-image': ['tool:test_image_content'],
  'tools-call-audio': ['tool:test_audio_content'],
  'tools-call-embedded-resource': ['tool:test_embedded_resource'],
  'tools-call-mixed-content': ['tool:test_multiple_content_types'],
  'tools-call-with-logging': ['tool:test_tool_with_logging'],
  'tools-call-error': ['tool:test_error_handling'],
  'tools-call-with-progress': ['tool:test_tool_with_progress'],
  'tools-call-sampling': ['tool:test_sampling'],
  'tools-call-elicitation': ['tool:test_elicitation'],
  'elicitation-sep1034-defaults': ['tool:test_elicitation_sep1034_defaults'],
  'elicitation-sep1330-enums': ['tool:test_elicitation_sep1330_enums'],
  'server-sse-polling': ['tool:test_reconnection'],
  'resources-read-text': ['resource:test://static-text'],
  'resources-read-binary': ['resource:test://static-binary'],
  'resources-templates-read': ['resource:test://template/123/data'],
  'prompts-get-simple': ['prompt:test_simple_prompt'],
  'prompts-get-with-args': ['prompt:test_prompt_with_arguments'],
  'prompts-get-embedded-resource': ['prompt:test_prompt_with_embedded_resource'],
  'prompts-get-with-image': ['prompt:test_prompt_with_image'],
  // 2026-07-28 (SCENARIOS-2026.md). The log is per suite, so an entry proves the fixture was
  // reached during that suite's run.
  'server-stateless': [
    'tool:test_missing_capability',
    'tool:test_streaming_elicitation',
    'tool:test_logging_tool',
    'tool:test_trigger_tool_change',
    'tool:test_trigger_prompt_change',
  ],
  caching: ['resource:test://static-text'],
  'input-required-result-basic-elicitation': ['tool:test_input_required_result_elicitation'],
  'input-required-result-basic-sampling': ['tool:test_input_required_result_sampling'],
  'input-required-result-basic-list-roots': ['tool:test_input_required_result_list_roots'],
  'input-required-result-request-state': ['tool:test_input_required_result_request_state'],
  'input-required-result-multiple-input-requests': ['tool:test_input_required_result_multiple_inputs'],
  'input-required-result-multi-round': ['tool:test_input_required_result_multi_round'],
  'input-required-result-missing-input-response': ['tool:test_input_required_result_elicitation'],
  'input-required-result-non-tool-request': ['prompt:test_input_required_result_prompt'],
  'input-required-result-result-type': ['tool:test_input_required_result_elicitation'],
  'input-required-result-tampered-state': ['tool:test_input_required_result_tampered_state'],
  'input-required-result-capability-check': ['tool:test_input_required_result_capabilities'],
  'input-required-result-ignore-extra-params': ['tool:test_input_required_result_elicitation'],
  'input-required-result-validate-input': ['tool:test_input_required_result_elicitation'],
  'tasks-lifecycle': ['tool:greet', 'tool:slow_compute', 'tool:failing_job', 'tool:protocol_error_job'],
  'tasks-capability-negotiation': ['tool:slow_compute'],
  'tasks-wire-fields': ['tool:slow_compute'],
  'tasks-request-state-removal': ['tool:slow_compute'],
  'tasks-mrtr-input': ['tool:confirm_delete', 'tool:multi_input'],
  'tasks-request-headers': ['tool:greet', 'tool:slow_compute'],
  'tasks-dispatch-and-envelope': ['tool:greet', 'tool:slow_compute', 'tool:failing_job', 'tool:confirm_delete'],
  'tasks-mrtr-composition': ['tool:test_tool_with_task'],
  'http-header-validation': ['tool:test_simple_text'],
  'http-custom-header-server-validation': ['tool:test_custom_headers'],
};

/**
 * SKIPPED checks that are the suite's own choice, not a sign of a missing feature: scenario →
 * check ids. `tasks-status-notifications` has no implementation yet (its run() returns this one
 * SKIPPED check for every server, pending a rewrite against subscriptions/listen). Every other
 * SKIPPED means a prerequisite failed or a capability was not advertised, so a suite judged with
 * `skippedFails` counts it as a failure.
 */
const INTENTIONAL_SKIPS = {
  'tasks-status-notifications': ['tasks-status-notifications'],
};

/** A problem with the run itself rather than with a scenario. */
class HarnessError extends Error {}

// Children are killed on every way out: normal end, error, Ctrl+C, CI cancellation.
const children = new Set();
function track(child) {
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}
process.on('exit', () => children.forEach((child) => child.kill('SIGKILL')));
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    children.forEach((child) => child.kill('SIGTERM'));
    process.exit(130);
  });
}

function exited(child) {
  return child.exitCode !== null || child.signalCode !== null;
}

function waitForExit(child, timeoutMs) {
  if (exited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function stop(child) {
  if (exited(child)) return;
  child.kill('SIGTERM');
  if (!(await waitForExit(child, STOP_TIMEOUT_MS))) child.kill('SIGKILL');
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

function tail(file, lines = 20) {
  return existsSync(file) ? readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n') : '';
}

async function waitUntilReady(url, server, logFile) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exited(server))
      throw new HarnessError(
        `the fixture server exited (code ${server.exitCode}) before it was ready:\n${tail(logFile)}`,
      );
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(1_000) })).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new HarnessError(`${url} did not answer 200 within ${READY_TIMEOUT_MS} ms:\n${tail(logFile)}`);
}

/** Runs a command to completion with its output in a file; kills it after `timeoutMs`. */
async function runToFile(command, args, logFile, timeoutMs) {
  const fd = openSync(logFile, 'w');
  const child = track(spawn(command, args, { cwd: root, stdio: ['ignore', fd, fd] }));
  closeSync(fd);
  const finished = await Promise.race([
    new Promise((resolve) => child.once('close', () => resolve(true))),
    new Promise((resolve) => setTimeout(() => resolve(false), timeoutMs).unref()),
  ]);
  if (!finished) {
    await stop(child);
    throw new HarnessError(`the suite did not finish within ${timeoutMs / 1000} s (see ${relative(root, logFile)})`);
  }
  return child.exitCode;
}

/** The expected-failures file, in the subset of YAML the suite documents: `server:` + `- name` lines. */
function readBaseline() {
  const names = [];
  let section;
  for (const raw of readFileSync(baselineFile, 'utf8').split(/\r?\n/)) {
    const line = raw.replace(/(^|\s)#.*$/, '').trimEnd();
    if (line === '') continue;
    const key = /^([\w-]+):\s*(\[\s*\])?$/.exec(line);
    const item = /^\s+-\s+(['"]?)([\w/.-]+)\1$/.exec(line);
    if (key) section = key[1];
    else if (item && section) {
      if (section === 'server') names.push(item[2]);
    } else
      throw new HarnessError(`baseline.yml: cannot read "${raw}" (expected "server:" then "  - <scenario>" lines)`);
  }
  return names;
}

/** Every server scenario of `--suite all`, from the suite itself. */
function listScenarios(node, suite) {
  const { stdout, status } = spawnSync(node, [suite, 'list', '--server'], { encoding: 'utf8' });
  const names = [...stdout.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1]);
  if (status !== 0 || names.length === 0)
    throw new HarnessError(`\`conformance list --server\` failed (exit ${status})`);
  return names;
}

/**
 * The server scenarios a `--requirements` run executes, scored or not, from the suite itself:
 * the "Server scenarios" section and every `[server]` entry of the not-scored part. A scenario
 * that crashes writes no checks.json, so the run is judged against this list, not the files.
 */
function listRequiredScenarios(node, suite, revision) {
  const { stdout, status } = spawnSync(node, [suite, 'list', '--server', '--requirements', revision], {
    encoding: 'utf8',
  });
  const names = [];
  let inServerSection = false;
  for (const line of stdout.split(/\r?\n/)) {
    if (/^Server scenarios/.test(line)) inServerSection = true;
    else if (line.trim() === '' || /^\S/.test(line)) inServerSection = false;
    const item = /^\s+- (\S+)(?: \[(\w+)\])?$/.exec(line);
    if (item && (item[2] === 'server' || (item[2] === undefined && inServerSection))) names.push(item[1]);
  }
  if (status !== 0 || names.length === 0)
    throw new HarnessError(`\`conformance list --server --requirements ${revision}\` failed (exit ${status})`);
  return names;
}

/** Scenario name → its checks, from `<dir>/server-<scenario>-<timestamp>/checks.json`. */
function readChecks(dir) {
  const checks = new Map();
  for (const entry of readdirSync(dir).sort()) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry);
    const file = join(dir, entry, 'checks.json');
    if (match && existsSync(file)) checks.set(match[1], JSON.parse(readFileSync(file, 'utf8')));
  }
  return checks;
}

function readInvoked(fixtureLog) {
  const lines = readFileSync(fixtureLog, 'utf8').split('\n').filter(Boolean);
  return new Set(lines.map((line) => JSON.parse(line)).map(({ kind, name }) => `${kind}:${name}`));
}

/** Whether a check fails its scenario: FAILURE and WARNING always, SKIPPED when the suite says so. */
function failing(scenario, check, skippedFails) {
  if (check.status === 'FAILURE' || check.status === 'WARNING') return true;
  return skippedFails && check.status === 'SKIPPED' && !(INTENTIONAL_SKIPS[scenario] ?? []).includes(check.id);
}

/**
 * Classifies every scenario; the suite's own rule applies (a WARNING fails a scenario too), and
 * with `skippedFails` an unintended SKIPPED fails it as well.
 */
function judge(scenarios, checks, expected, invoked, skippedFails) {
  return scenarios.map((scenario) => {
    const results = checks.get(scenario);
    const why = results
      ? results
          .filter((check) => failing(scenario, check, skippedFails))
          .map((check) => `[${check.id}] ${check.status}: ${check.errorMessage ?? check.description}`)
      : ['no checks.json: the scenario crashed (see suite.log)'];
    if (expected.has(scenario)) {
      return why.length > 0
        ? { scenario, verdict: 'expected', why }
        : { scenario, verdict: 'stale', why: ['passes but is listed in baseline.yml: remove it'] };
    }
    if (why.length > 0) return { scenario, verdict: 'failed', why };
    const missing = (FIXTURES[scenario] ?? []).filter((fixture) => !invoked.has(fixture));
    if (missing.length > 0)
      return { scenario, verdict: 'failed', why: [`passed without reaching its fixture ${missing.join(', ')}`] };
    // A scenario may pass on INFO checks alone (e.g. SSE polling against a JSON response): say so.
    const vacuous = !results.some((check) => check.status === 'SUCCESS');
    if (vacuous && skippedFails && results.every((check) => check.status === 'SKIPPED'))
      return { scenario, verdict: 'passed', why: ['(intentionally skipped by the suite: nothing tested)'] };
    return {
      scenario,
      verdict: 'passed',
      why: vacuous ? ['(passed on INFO checks only: nothing applicable was tested)'] : [],
    };
  });
}

function report(verdicts) {
  const marks = { passed: '✓', failed: '✗', stale: '✗', expected: '~' };
  for (const { scenario, verdict, why } of verdicts) {
    console.log(`${marks[verdict]} ${scenario}${verdict === 'expected' ? ' (expected failure, baseline.yml)' : ''}`);
    for (const line of why) console.log(`    ${line}`);
  }
}

/**
 * The suites run against the same fixture server: the latest stable release over every
 * scenario (with the baseline), then the next release's frozen requirements of 2025-11-25 and
 * of 2026-07-28. The 2026 run is judged on every scenario it executes, scored or not (tasks
 * extension, pending), and an unintended SKIPPED fails it (INTENTIONAL_SKIPS).
 */
const SUITES = [
  {
    label: '@modelcontextprotocol/conformance 0.1.16, --suite all',
    pkg: undefined,
    dir: 'suite-all',
    args: ['--suite', 'all', '--expected-failures', baselineFile],
    baseline: true,
  },
  {
    label: '@modelcontextprotocol/conformance 0.2.0-alpha.12, --requirements 2025-11-25',
    pkg: 'conformance-next',
    dir: 'requirements-2025-11-25',
    args: ['--requirements', '2025-11-25'],
    requirements: '2025-11-25',
    baseline: false,
  },
  {
    label: '@modelcontextprotocol/conformance 0.2.0-alpha.12, --requirements 2026-07-28',
    pkg: 'conformance-next',
    dir: 'requirements-2026-07-28',
    args: ['--requirements', '2026-07-28'],
    requirements: '2026-07-28',
    baseline: false,
    skippedFails: true,
  },
];

/** Runs one suite against the server at `url`; returns its verdicts and the suite's exit code. */
async function runSuite(node, suite, url, fixtureLog) {
  const entry = suiteEntry(suite.pkg);
  if (!entry) throw new HarnessError(`${suite.label} is not installed: run \`node test/conformance/install.mjs\``);
  const dir = join(output, suite.dir);
  mkdirSync(dir, { recursive: true });
  writeFileSync(fixtureLog, '');
  const expected = new Set(suite.baseline ? readBaseline() : []);
  const listed = suite.requirements
    ? listRequiredScenarios(node, entry, suite.requirements)
    : listScenarios(node, entry);
  const unknown = [...expected].filter((name) => !listed.includes(name));
  if (unknown.length > 0) throw new HarnessError(`baseline.yml lists unknown scenarios: ${unknown.join(', ')}`);
  const exit = await runToFile(
    node,
    [entry, 'server', '--url', url, ...suite.args, '-o', dir],
    join(dir, 'suite.log'),
    SUITE_TIMEOUT_MS,
  );
  const checks = readChecks(dir);
  const ran = [...checks.keys()].filter((name) => !listed.includes(name));
  if (ran.length > 0) throw new HarnessError(`${suite.label} ran scenarios it does not list: ${ran.join(', ')}`);
  const verdicts = judge(listed, checks, expected, readInvoked(fixtureLog), suite.skippedFails === true);
  return { verdicts, exit, expected: expected.size };
}

async function main() {
  const node = node22();
  if (!existsSync(serverEntry))
    throw new HarnessError(`${relative(root, serverEntry)} is missing: run \`npm run build\` first`);
  if (!node)
    throw new HarnessError(
      `no Node >= 22 for ${process.platform}-${process.arch}: run with Node >= 22 or set CONFORMANCE_NODE`,
    );

  rmSync(output, { recursive: true, force: true });
  mkdirSync(output, { recursive: true });
  const fixtureLog = join(output, 'fixtures.jsonl');
  const serverLog = join(output, 'server.log');

  const port = await freePort();
  const serverFd = openSync(serverLog, 'w');
  const server = track(
    spawn(process.execPath, [serverEntry], {
      cwd: root,
      env: { ...process.env, PORT: String(port), FIXTURE_LOG: fixtureLog },
      stdio: ['ignore', serverFd, serverFd],
    }),
  );
  closeSync(serverFd);
  let passed = 0;
  let failed = 0;
  try {
    await waitUntilReady(`http://127.0.0.1:${port}/health/ready`, server, serverLog);
    for (const suite of SUITES) {
      const result = await runSuite(node, suite, `http://127.0.0.1:${port}/mcp`, fixtureLog);
      console.log(`\n### ${suite.label}`);
      report(result.verdicts);
      const count = (verdict) => result.verdicts.filter((item) => item.verdict === verdict).length;
      const suiteFailed = count('failed') + count('stale');
      const checks = result.verdicts.length;
      console.log(
        `${count('passed')} of ${checks} scenarios passed; ${result.expected} expected failure(s) in ${relative(root, baselineFile)}`,
      );
      if (suiteFailed === 0 && result.exit !== 0) {
        // The suite saw a problem this harness did not: never report green over a red suite.
        console.log(`✗ the suite exited with code ${result.exit} (see ${suite.dir}/suite.log)`);
        failed++;
      }
      passed += count('passed');
      failed += suiteFailed;
    }
  } finally {
    await stop(server);
  }
  console.log(
    `\nlogs and checks: ${relative(root, output)}/ (server.log, fixtures.jsonl, <suite>/suite.log, <suite>/server-*/checks.json)`,
  );
  console.log(`conformance: ${passed} passed, ${failed} failed`);
  if (failed > 0) process.exitCode = 1;
}

try {
  await main();
} catch (error) {
  if (!(error instanceof HarnessError)) throw error;
  console.log(`✗ ${error.message}`);
  console.log('conformance: 0 passed, 0 failed');
  process.exitCode = 1;
}
