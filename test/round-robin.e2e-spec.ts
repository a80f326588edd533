import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectSdkV2, MODERN, type ConnectedV2 } from './support/era-clients';
import { auditRecords, DESK_HTTP_TOOLS, readAuditTrail } from './support/desk-host';
import { startDeskProcess, type DeskProcess } from './support/desk-process';
import { startRedisServer, type RedisServer } from './support/redis-server';
import { SERVED_BY, startHaproxy, type Haproxy } from './support/haproxy';
import { WireTap } from './support/wire-tap';

/**
 * The key both processes seal and open a multi-round-trip request's `requestState` with: any
 * replica can resume what another one started, and nobody else can forge or read one.
 */
const REQUEST_STATE_SECRET = randomBytes(32).toString('base64');
const DESKS = ['desk-a', 'desk-b'] as const;

/**
 * 2026-07-28 is stateless: a client needs no session and no sticky routing. Two support-desk
 * processes share the request-state key and sit behind HAProxy balancing each request
 * round-robin; one SDK v2 client pinned to 2026-07-28 is served through it, including a
 * close_ticket confirmation whose InputRequiredResult comes from one process and whose retry is
 * answered by the other. A confirmation counts once, so the processes also share where that is
 * recorded: a Redis backplane (REDIS_URL). Without it each process keeps its own claims, and one
 * asks again for a confirmation the other asked for (test/single-use-restart.e2e-spec.ts).
 */
describe('two support-desk processes behind a round-robin proxy (HAProxy, no stickiness)', () => {
  const auditDir = mkdtempSync(join(tmpdir(), 'round-robin-'));
  const auditFile = (desk: string) => join(auditDir, `${desk}.jsonl`);
  const desks = new Map<string, DeskProcess>();
  let proxy: Haproxy;
  let connected: ConnectedV2;
  let redis: RedisServer;
  const questions: string[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    for (const desk of DESKS)
      desks.set(
        desk,
        await startDeskProcess({
          MCP_REQUEST_STATE_SECRET: REQUEST_STATE_SECRET,
          REDIS_URL: redis.url,
          AUDIT_FILE: auditFile(desk),
          AUDIT_CHAIN: desk,
          SUPPORT_REPORT_STEP_MS: '20',
        }),
      );
    proxy = await startHaproxy(Object.fromEntries(DESKS.map((desk) => [desk, desks.get(desk)!.port])));
    connected = await connectSdkV2(
      `http://127.0.0.1:${proxy.port}/mcp`,
      'behind-the-proxy',
      { pin: MODERN },
      {
        elicit: (question) => (questions.push(question), { action: 'accept', content: { confirm: true } }),
      },
    );
  }, 90_000);

  afterAll(async () => {
    await connected?.client.close();
    await proxy?.stop();
    for (const desk of desks.values()) await desk.stop();
    await redis?.stop();
  });

  /** Which process answered an exchange. */
  const servedBy = (exchange: { responseHeaders?: Headers }) => exchange.responseHeaders?.get(SERVED_BY);

  it('serves the client from both processes alike, request by request', async () => {
    const { client, tap } = connected;
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    const before = tap.exchanges.length;
    for (let i = 0; i < 2; i++) {
      expect((await client.listTools()).tools).toHaveLength(DESK_HTTP_TOOLS.length);
      const found = await client.callTool({ name: 'search_customers', arguments: { query: 'contoso' } });
      expect(found.structuredContent).toMatchObject({ count: 1 });
      const progress: number[] = [];
      const report = await client.callTool(
        { name: 'export_ticket_report', arguments: { status: 'open' } },
        { onprogress: (update) => void progress.push(update.progress) },
      );
      expect((report.content[0] as { text: string }).text).toMatch(/^Report of \d+ ticket\(s\) with status open/);
      expect(progress.length).toBeGreaterThan(1);
    }
    const answeredBy = tap.exchanges.slice(before).map(servedBy);
    expect(new Set(answeredBy)).toEqual(new Set(DESKS));
  });

  it('resumes a close_ticket confirmation on the other process: input_required from one, the retry answered by the other', async () => {
    const { client, tap } = connected;
    const args = { ticketId: 'T-2001', resolution: 'Closed through the proxy.' };
    const closed = await client.callTool({ name: 'close_ticket', arguments: args });
    expect(closed).toMatchObject({ structuredContent: { id: 'T-2001', status: 'closed', alreadyClosed: false } });
    expect(questions).toEqual([`Allow "Close a ticket" to run with ${JSON.stringify(args)}?`]);

    const legs = tap.requests('tools/call', 'close_ticket');
    expect(legs).toHaveLength(2);
    const [asked, answered] = await Promise.all(legs.map((leg) => WireTap.answer(leg)));
    expect(asked?.result).toMatchObject({ resultType: 'input_required', requestState: expect.any(String) });
    expect(answered?.result).toMatchObject({ resultType: 'complete', structuredContent: { status: 'closed' } });
    const [first, second] = legs.map(servedBy);
    expect(DESKS).toContain(first);
    expect(DESKS).toContain(second);
    expect(second).not.toBe(first);

    // Each process's own trail agrees: the call ran (once) where the retry landed, not where it was asked.
    const [ran] = await auditRecords(
      auditFile(second!),
      (record) => record.method === 'tools/call' && record.target === 'close_ticket',
    );
    expect(ran).toMatchObject({
      outcome: 'ok',
      chain: second,
      arguments: args,
      client: { name: 'behind-the-proxy' },
      protocolVersion: MODERN,
    });
    const elsewhere = (await readAuditTrail(auditFile(first!))).filter(
      (record) => record.target === 'close_ticket' && record.outcome === 'ok',
    );
    expect(elsewhere).toEqual([]);
  });

  it('runs nothing on a process that does not hold the key: neither the retry as sent nor a made-up acceptance', async () => {
    const stranger = await startDeskProcess({
      MCP_REQUEST_STATE_SECRET: randomBytes(32).toString('base64'),
      AUDIT_FILE: auditFile('stranger'),
      AUDIT_CHAIN: 'stranger',
    });
    const url = `http://127.0.0.1:${stranger.port}/mcp`;
    try {
      // The retry the client sent in the test before: its state was sealed by the two desks' key.
      const retry = connected.tap.requests('tools/call', 'close_ticket')[1];
      expect(retry?.sent).toBeDefined();
      expect(retry.sent!.params).toMatchObject({
        requestState: expect.any(String),
        inputResponses: expect.any(Object),
      });
      const { requestState: _sealed, ...unsealed } = retry.sent!.params!;
      const replay = new WireTap();
      for (const params of [retry.sent!.params!, unsealed])
        await replay.fetch(url, {
          method: 'POST',
          headers: retry.headers,
          body: JSON.stringify({ ...retry.sent, params }),
        });
      for (const exchange of replay.exchanges) {
        const answer = await WireTap.answer(exchange);
        // Refused, or asked again: either way not run.
        const outcome = answer?.error ? 'refused' : answer?.result?.resultType;
        expect({ outcome, answer }).toMatchObject({ outcome: expect.stringMatching(/^(refused|input_required)$/) });
      }
      const direct = await connectSdkV2(url, 'direct', { pin: MODERN });
      try {
        const ticket = await direct.client.callTool({ name: 'get_ticket', arguments: { ticketId: 'T-2001' } });
        expect(ticket.structuredContent).toMatchObject({ id: 'T-2001', status: 'open' });
      } finally {
        await direct.client.close();
      }
    } finally {
      await stranger.stop();
    }
    const ran = (await readAuditTrail(auditFile('stranger'))).filter(
      (record) => record.target === 'close_ticket' && record.outcome === 'ok',
    );
    expect(ran).toEqual([]);
  }, 60_000);
});
