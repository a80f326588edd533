import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectHttpClient } from './support/fixture-app';
import { freePort } from './support/free-port';
import { startDeskProcess, type DeskProcess } from './support/desk-process';
import { waitForAsync } from './support/wait-for';

const run = promisify(execFile);
const RULES_DIR = join(__dirname, '..', 'docker', 'prometheus');
const ADMIN_KEY = 'desk-demo-admin-key';

interface PromAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: 'pending' | 'firing';
  /** The alert's expression's value at its last evaluation, as Prometheus writes it. */
  value: string;
}

/**
 * The rules of docker/prometheus/mcp-rules.yml: checked and unit-tested with promtool, then
 * evaluated by Debian's Prometheus scraping the support desk (`node dist/src/main.js`) every
 * second, and a replica that does not answer: a tool failing half its calls makes
 * McpToolErrorRateHigh fire for it, the missing replica McpReplicaMissing. The rules are the real
 * file with each `for:` set to 0s (the expressions unchanged): the unit tests hold the waits.
 */
describe('Prometheus rules (promtool, and a real Prometheus scraping the desk)', () => {
  let desk: DeskProcess;
  let prometheus: ChildProcess | undefined;
  let api: string;
  let missing: number;
  let client: Client;

  const alerts = async (): Promise<PromAlert[]> => {
    const response = await fetch(`${api}/api/v1/alerts`);
    return ((await response.json()) as { data: { alerts: PromAlert[] } }).data.alerts;
  };
  const query = async (expr: string) => {
    const response = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(expr)}`);
    return (
      (await response.json()) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } }
    ).data.result;
  };

  beforeAll(async () => {
    desk = await startDeskProcess({
      AUTH_MODE: 'apiKey',
      MCP_API_KEYS_FILE: join(__dirname, '..', 'config', 'api-keys.example.json'),
      MCP_REPLICA: 'desk-1',
    });
    missing = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'prometheus-'));
    const rules = readFileSync(join(RULES_DIR, 'mcp-rules.yml'), 'utf8').replace(/^(\s+)for: \S+$/gm, '$1for: 0s');
    writeFileSync(join(dir, 'mcp-rules.yml'), rules);
    writeFileSync(
      join(dir, 'prometheus.yml'),
      [
        'global: { scrape_interval: 1s, evaluation_interval: 1s }',
        'rule_files: [mcp-rules.yml]',
        'scrape_configs:',
        '  - job_name: nest-mcp-host',
        '    authorization: { type: Bearer, credentials: ' + ADMIN_KEY + ' }',
        `    static_configs: [{ targets: ["127.0.0.1:${desk.port}", "127.0.0.1:${missing}"] }]`,
        '',
      ].join('\n'),
    );
    const port = await freePort();
    api = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      'prometheus',
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: 'ignore' },
    );
    await waitForAsync(
      () =>
        fetch(`${api}/-/ready`).then(
          (r) => r.ok,
          () => false,
        ),
      20_000,
    );
    client = await connectHttpClient(`http://127.0.0.1:${desk.port}/mcp`, {
      authorization: 'Bearer desk-demo-read-only-key',
    });
  });

  afterAll(async () => {
    await client?.close();
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((resolve) => prometheus!.once('exit', resolve));
      prometheus.kill('SIGTERM');
      await exited;
    }
    await desk?.stop();
  });

  it('passes promtool: the rules check, and their unit tests (each alert after its `for`, none on healthy series)', async () => {
    const check = await run('promtool', ['check', 'rules', join(RULES_DIR, 'mcp-rules.yml')]);
    expect(check.stdout).toContain('SUCCESS: 14 rules found');
    const tests = await run('promtool', ['test', 'rules', 'mcp-rules.test.yml'], { cwd: RULES_DIR });
    expect(tests.stdout).toContain('SUCCESS');
    const config = await run('promtool', ['check', 'config', join(RULES_DIR, 'prometheus.yml')]);
    expect(config.stdout).toContain('SUCCESS');
  });

  it('fires McpToolErrorRateHigh for the tool that fails, and McpReplicaMissing for the replica that does not answer', async () => {
    // Calls over several scrapes, so that rate() has two samples: half of get_ticket's calls fail.
    const deadline = Date.now() + 40_000;
    let fired: PromAlert[] = [];
    for (let round = 0; Date.now() < deadline; round++) {
      await client.callTool({ name: 'get_ticket', arguments: { ticketId: 'T-2001' } });
      const failed = await client.callTool({ name: 'get_ticket', arguments: { ticketId: `T-9${1000 + round}` } });
      expect(failed.isError).toBe(true);
      await client.callTool({ name: 'search_tickets', arguments: { status: 'open' } });
      fired = (await alerts()).filter((alert) => alert.state === 'firing');
      if (fired.some((alert) => alert.labels.alertname === 'McpToolErrorRateHigh')) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const errorRate = fired.filter((alert) => alert.labels.alertname === 'McpToolErrorRateHigh');
    expect(errorRate).toEqual([
      expect.objectContaining({
        labels: { alertname: 'McpToolErrorRateHigh', severity: 'warning', target: 'get_ticket' },
        annotations: expect.objectContaining({
          summary: expect.stringMatching(/^get_ticket: [\d.]+% of its calls fail$/),
        }),
      }),
    ]);
    // Half of the calls fail, but a scrape can fall between a round's calls (a third, two thirds):
    // the summary says the share the alert measured, above the rule's quarter.
    const [alert] = errorRate;
    const share = Number(alert.value);
    expect(share).toBeGreaterThan(0.25);
    expect(Number(/([\d.]+)%/.exec(alert.annotations.summary)![1])).toBeCloseTo(share * 100, 1);
    await waitForAsync(
      async () =>
        (await alerts()).some((alert) => alert.labels.alertname === 'McpReplicaMissing' && alert.state === 'firing'),
      20_000,
    );
    const replica = (await alerts()).filter((alert) => alert.labels.alertname === 'McpReplicaMissing');
    expect(replica.map((alert) => alert.labels.instance)).toEqual([`127.0.0.1:${missing}`]);
    // The recording rules hold the per-tool series the board and the alerts read.
    const ratio = await query('mcp:tool_errors:ratio_rate5m');
    expect(ratio.map((sample) => [sample.metric.target, Number(sample.value[1])]).sort()).toEqual([
      ['get_ticket', 0.5],
      ['search_tickets', 0],
    ]);
    const p95 = await query('mcp:tool_latency_seconds:p95_5m{target="get_ticket"}');
    expect(Number(p95[0].value[1])).toBeGreaterThan(0);
    // Nothing fires that should not: no approvals wait, the audit spool is empty, no upstream.
    const names = new Set((await alerts()).map((alert) => alert.labels.alertname));
    expect([...names].sort()).toEqual(['McpReplicaMissing', 'McpToolErrorRateHigh']);
  });

  it("the Grafana board's every query runs on that Prometheus, and its charts of calls, errors and latency have the desk's tools", async () => {
    const board = JSON.parse(
      readFileSync(join(__dirname, '..', 'docker', 'grafana', 'dashboards', 'nest-mcp-host.json'), 'utf8'),
    ) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    const results = new Map<string, string[]>();
    for (const panel of board.panels)
      for (const target of panel.targets) {
        const expr = target.expr.replaceAll('$replica', '.*').replaceAll('$__rate_interval', '1m');
        const response = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(expr)}`);
        expect([panel.title, response.status]).toEqual([panel.title, 200]);
        const body = (await response.json()) as { data: { result: { metric: Record<string, string> }[] } };
        results.set(panel.title, [
          ...(results.get(panel.title) ?? []),
          ...body.data.result.map((r) => r.metric.target ?? r.metric.replica ?? ''),
        ]);
      }
    for (const title of [
      'Tool calls per second',
      'Tool calls failing (share)',
      'Latency p50 per tool',
      'Latency p95 per tool',
    ])
      expect([title, [...new Set(results.get(title))].sort()]).toEqual([title, ['get_ticket', 'search_tickets']]);
    expect(results.get('Calls per second per replica')).toEqual(['desk-1']);
  });
});
