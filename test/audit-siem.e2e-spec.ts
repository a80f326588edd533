import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { AuditTrail, hashApiKey, SyslogAuditSink, WebhookAuditSink, type AuditRecord } from '#libs/security';
import { AuditFixtureModule } from './fixtures/audit.fixtures';
import { startAuditWebhookReceiver, type AuditWebhookReceiver } from './support/audit-webhook-receiver';
import { connectHttpClient } from './support/fixture-app';
import { DESK_KEYS, startDeskHost, type DeskHost } from './support/desk-host';
import { parsePrometheusText } from './support/prometheus-text';
import { startRsyslog, type RsyslogServer } from './support/rsyslog-server';
import { makeTestCertificates, type TestCertificates } from './support/test-certificates';
import { waitFor, waitForAsync } from './support/wait-for';

const run = promisify(execFile);
const VERIFY = join(__dirname, '..', 'dist', 'apps', 'audit-verify', 'src', 'main.js');
const KEY = 'ak_agent_0123456789';
const SECRET = 'a-webhook-secret-of-32-characters!!';

const verify = (file: string) =>
  run(process.execPath, [VERIFY, '--lines', file]).then(
    ({ stdout }) => ({ code: 0, out: stdout.trim() }),
    (error: { code: number; stderr: string }) => ({ code: error.code, out: error.stderr.trim() }),
  );

/**
 * The audit trail into a SIEM: Debian's rsyslog receiving RFC 5424 over TLS, and an HTTPS
 * receiver that drops, fails and delays requests, both fed at once from the trail; each sink's
 * health in readiness and metrics; a sink that goes down is caught up from its spool; and
 * `npm run audit:verify -- --lines` checks the chain in what each receiver wrote, naming the
 * first record altered or missing.
 */
describe('audit trail into a SIEM (syslog over TLS, signed webhook)', () => {
  let app: INestApplication;
  let base: string;
  let rsyslog: RsyslogServer;
  let receiver: AuditWebhookReceiver;
  let trail: AuditTrail;
  let agent: Client;
  let written = 0;
  let certs: TestCertificates;

  const calls = async (count: number, from = 0) => {
    for (let n = from; n < from + count; n++)
      await agent.callTool({ name: 'resetPassword', arguments: { login: `åda-${n}`, newPassword: 'correct horse' } });
  };
  const ready = async () => {
    const response = await fetch(`${base}/health/ready`);
    return { status: response.status, body: (await response.json()) as Record<string, Record<string, unknown>> };
  };
  const forward = (name: string) => trail.health().forwards.find((f) => f.sink === name)!;

  beforeAll(async () => {
    certs = makeTestCertificates();
    rsyslog = await startRsyslog(certs);
    receiver = await startAuditWebhookReceiver(certs, SECRET);
    // The first deliveries meet a dropped connection, a 503, then an answer later than the sink waits.
    receiver.plan.push('drop', 'fail', 'delay');
    receiver.delayMs = 1_500;
    const file = join(await mkdtemp(join(tmpdir(), 'mcp-siem-')), 'audit.jsonl');
    const moduleRef = await Test.createTestingModule({
      imports: [
        AuditFixtureModule.register({
          audit: {
            file,
            chain: 'siem-host',
            forwardMaxRetryMs: 400,
            forward: [
              new SyslogAuditSink({ host: 'localhost', port: rsyslog.port, tls: { ca: certs.ca }, timeoutMs: 1_000 }),
              new WebhookAuditSink({ url: receiver.url, secret: SECRET, tls: { ca: certs.ca }, timeoutMs: 500 }),
            ],
          },
          auth: { mode: 'apiKey', keys: [{ hash: hashApiKey(KEY), principal: 'agent-7', scopes: ['mcp:admin'] }] },
        }),
      ],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    trail = app.get(AuditTrail);
    agent = await connectHttpClient(`${base}/mcp`, { authorization: `Bearer ${KEY}` });
    await calls(20);
  });

  afterAll(async () => {
    await agent?.close();
    await app?.close();
    await rsyslog?.stop();
    await receiver?.close();
  });

  it('delivers every record to both sinks, through a dropped, a failed and a late webhook request', async () => {
    await waitFor(() => {
      written = trail.health().written;
      return forward('syslog').delivered === written && forward('webhook').delivered === written;
    }, 20_000);
    expect(written).toBeGreaterThanOrEqual(21); // initialize and 20 calls
    const outcomes = receiver.seen.map((seen) => seen.outcome);
    expect(outcomes.slice(0, 3)).toEqual(['dropped', 'failed', 'delayed']);
    // The late answer came after the sink gave up: it sent the very same batch again.
    const late = receiver.seen[2].key;
    expect(receiver.seen.filter((seen) => seen.key === late).map((seen) => seen.outcome)).toContain('repeat');
    expect(forward('webhook')).toMatchObject({ state: 'ok', spooled: 0, failures: 3 });
    const stored = (await readFile(receiver.log, 'utf8')).trim().split('\n');
    expect(stored).toHaveLength(written);
    expect(new Set(stored.map((line) => (JSON.parse(line) as AuditRecord).id)).size).toBe(written);
  });

  it('shows each sink in readiness and metrics', async () => {
    const { status, body } = await ready();
    expect(status).toBe(200);
    expect(body.details['audit-forward:syslog']).toMatchObject({ status: 'up', required: false, delivered: written });
    expect(body.details['audit-forward:webhook']).toMatchObject({ status: 'up', required: false, failures: 3 });
    const metrics = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${KEY}` } });
    const { samples } = parsePrometheusText(await metrics.text());
    const value = (name: string, sink: string) =>
      samples.find((sample) => sample.name === name && sample.labels.sink === sink)?.value;
    expect(value('mcp_audit_forward_up', 'syslog')).toBe(1);
    expect(value('mcp_audit_forward_delivered_total', 'syslog')).toBeGreaterThanOrEqual(written);
    expect(value('mcp_audit_forward_failures_total', 'webhook')).toBe(3);
  });

  it('spools while rsyslog is down, reports it degraded (calls go on), and catches up when it is back', async () => {
    await rsyslog.stop();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await calls(10, 100);
    await waitFor(() => forward('syslog').state === 'failing' && forward('syslog').spooled > 0, 10_000);
    const { status, body } = await ready();
    expect(status).toBe(200);
    // Not required: terminus' shape keeps it "up" and says it is degraded, with why.
    expect(body.details['audit-forward:syslog']).toMatchObject({
      status: 'up',
      degraded: true,
      state: 'failing',
      required: false,
      error: expect.stringContaining('ECONNREFUSED'),
    });
    expect(body.details['audit-forward:webhook']).toMatchObject({ status: 'up' });
    await rsyslog.start();
    await waitFor(() => {
      written = trail.health().written;
      return forward('syslog').delivered === written && forward('syslog').state === 'ok';
    }, 20_000);
    expect(written).toBeGreaterThanOrEqual(31);
  });

  it("audit:verify checks the chain in rsyslog's file and in the receiver's log, and names the first record altered or missing", async () => {
    await waitFor(() => forward('webhook').delivered === trail.health().written, 10_000);
    const syslog = await verify(rsyslog.file);
    expect(syslog).toEqual({ code: 0, out: expect.stringMatching(/^OK: \d+ record\(s\) in 1 chain\(s\)/) });
    const lines = (await readFile(rsyslog.file, 'utf8')).trim().split('\n');
    expect(lines[0]).toMatch(
      /^<\d+>1 \S+ \S+ nest-mcp-host \d+ audit \[mcpAudit@32473 chain="siem-host" seq="1" outcome="ok"\] \{"/,
    );
    expect(await verify(receiver.log)).toEqual({
      code: 0,
      out: `OK: ${written} record(s) in 1 chain(s), every hash and link verified.`,
    });

    const altered = [...lines];
    altered[4] = altered[4].replace('åda-', 'eve-');
    await writeFile(`${rsyslog.file}.altered`, `${altered.join('\n')}\n`);
    const tampered = await verify(`${rsyslog.file}.altered`);
    expect(tampered.code).toBe(1);
    expect(tampered.out).toMatch(
      /^BROKEN at record #5 \(id \S+, chain siem-host, seq 5\) in .*: its hash does not match its contents/,
    );

    const gap = lines.filter((_, index) => index !== 6);
    await writeFile(`${rsyslog.file}.gap`, `${gap.join('\n')}\n`);
    const missing = await verify(`${rsyslog.file}.gap`);
    expect(missing.code).toBe(1);
    expect(missing.out).toMatch(/seq 8\) in .*: seq 8 follows 6: a record is missing or out of order/);
  });

  /** The desk's image has no code to change: its environment alone turns forwarding on. */
  describe('the support desk, forwarding from its environment alone', () => {
    let desk: DeskHost;
    let client: Client;

    beforeAll(async () => {
      const ca = join(await mkdtemp(join(tmpdir(), 'mcp-siem-desk-')), 'siem-ca.pem');
      await writeFile(ca, certs.ca);
      desk = await startDeskHost({
        AUTH_MODE: 'apiKey',
        AUDIT_CHAIN: 'desk-siem',
        AUDIT_SYSLOG_HOST: 'localhost',
        AUDIT_SYSLOG_PORT: String(rsyslog.port),
        AUDIT_SYSLOG_CA_FILE: ca,
        AUDIT_WEBHOOK_URL: receiver.url,
        AUDIT_WEBHOOK_SECRET: SECRET,
        AUDIT_WEBHOOK_CA_FILE: ca,
      });
      client = await connectHttpClient(desk.url, { 'x-api-key': DESK_KEYS.admin });
    });
    afterAll(async () => {
      await client?.close();
      await desk?.close();
    });

    it('delivers its records to syslog over TLS and to the signed webhook, each shown in readiness', async () => {
      await client.callTool({ name: 'search_tickets', arguments: { status: 'open', limit: 1 } });
      const ofDesk = (lines: string[]) => lines.filter((line) => line.includes('desk-siem'));
      const fromSyslog = async () => ofDesk((await readFile(rsyslog.file, 'utf8')).split('\n'));
      const fromWebhook = async () => ofDesk((await readFile(receiver.log, 'utf8')).split('\n'));
      const called = (lines: string[]) => lines.some((line) => line.includes('"target":"search_tickets"'));
      await waitForAsync(async () => called(await fromSyslog()) && called(await fromWebhook()), 20_000);
      expect((await fromSyslog())[0]).toMatch(/\[mcpAudit@32473 chain="desk-siem" seq="1" outcome="ok"\]/);
      expect(JSON.parse((await fromWebhook())[0])).toMatchObject({ chain: 'desk-siem', seq: 1 });
      const ready = (await (await fetch(`${desk.base}/health/ready`)).json()) as {
        details: Record<string, { status: string; required: boolean }>;
      };
      expect(ready.details['audit-forward:syslog']).toMatchObject({ status: 'up', required: false });
      expect(ready.details['audit-forward:webhook']).toMatchObject({ status: 'up', required: false });
    });
  });
});
