import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import {
  ResourceUpdatedNotificationSchema,
  TaskStatusNotificationSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { connectSdkV1, connectSdkV2, LEGACY, MODERN, type ConnectedV1, type ConnectedV2 } from './support/era-clients';
import { auditRecords, DESK_KEYS, readAuditTrail, reportAsTask } from './support/desk-host';
import { startDeskProcess, type DeskProcess } from './support/desk-process';
import { SERVED_BY, startHaproxy, type Haproxy } from './support/haproxy';
import { startRedisServer, type RedisServer } from './support/redis-server';
import { SseReader } from './support/sse-reader';
import { waitFor, waitForAsync } from './support/wait-for';
import { WireTap, type WireExchange } from './support/wire-tap';

// Three host processes, Redis and HAProxy start here; a replica is killed and Redis restarted.
jest.setTimeout(60_000);

const REPLICAS = ['desk-1', 'desk-2', 'desk-3'] as const;
const REQUEST_STATE_SECRET = randomBytes(32).toString('base64');
const ADMIN = { 'x-api-key': DESK_KEYS.admin };

/**
 * Three support-desk processes sharing sessions, streams, tasks and subscriptions through Redis
 * (`REDIS_URL`), behind HAProxy balancing every request round-robin with no stickiness: a
 * 2025-11-25 session whose every request may land on another replica, and a 2026-07-28 client,
 * each doing everything a session does. Then a replica dies, and Redis restarts.
 */
describe('three replicas behind a round-robin proxy, sharing state through Redis', () => {
  const auditDir = mkdtempSync(join(tmpdir(), 'scale-out-'));
  const auditFile = (replica: string) => join(auditDir, `${replica}.jsonl`);
  const replicas = new Map<string, DeskProcess>();
  let redis: RedisServer;
  let proxy: Haproxy;
  let url: string;
  let v1: ConnectedV1;
  /** The questions the v1 client's user was asked. */
  const questions: string[] = [];

  beforeAll(async () => {
    // Persistent, as Redis in production should be: a restart keeps the sessions.
    redis = await startRedisServer({ persistent: true });
    await Promise.all(
      REPLICAS.map(async (replica) =>
        replicas.set(
          replica,
          await startDeskProcess({
            AUTH_MODE: 'apiKey',
            MCP_API_KEYS_FILE: 'config/api-keys.example.json',
            REDIS_URL: redis.url,
            MCP_REPLICA: replica,
            MCP_REQUEST_STATE_SECRET: REQUEST_STATE_SECRET,
            AUDIT_FILE: auditFile(replica),
            AUDIT_CHAIN: replica,
            // The report takes 5 steps: long enough for a cancellation to reach it through two hops.
            SUPPORT_REPORT_STEP_MS: '150',
          }),
        ),
      ),
    );
    proxy = await startHaproxy(
      Object.fromEntries(REPLICAS.map((replica) => [replica, replicas.get(replica)!.port])),
      undefined,
      {
        healthChecks: true,
      },
    );
    url = `http://127.0.0.1:${proxy.port}/mcp`;
    v1 = await connectSdkV1(url, 'scale-out-2025', {
      headers: ADMIN,
      elicit: (question) => (questions.push(question), { action: 'accept', content: { confirm: true } }),
    });
  }, 120_000);

  afterAll(async () => {
    await v1?.client.close().catch(() => undefined);
    await proxy?.stop();
    for (const replica of replicas.values()) await replica.stop();
    await redis?.stop();
  });

  /** Which replica answered an exchange. */
  const servedBy = (exchange: WireExchange) => exchange.responseHeaders?.get(SERVED_BY) ?? undefined;
  /** A replica's own address, bypassing the proxy. */
  const direct = (replica: string) => `http://127.0.0.1:${replicas.get(replica)!.port}/mcp`;
  /** The session's headers, for requests sent by hand. */
  const sessionHeaders = () => ({
    ...ADMIN,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-session-id': v1.transport.sessionId!,
    'mcp-protocol-version': LEGACY,
  });

  describe(`SDK v1 Client (${LEGACY}): one session, every request on whichever replica the proxy picks`, () => {
    it('serves the session from every replica: lists and calls', async () => {
      const before = v1.tap.exchanges.length;
      for (let i = 0; i < 3; i++) {
        expect((await v1.client.listTools()).tools.map((tool) => tool.name)).toContain('get_ticket');
        const found = (await v1.client.callTool({
          name: 'search_customers',
          arguments: { query: 'contoso' },
        })) as CallToolResult;
        expect(found.structuredContent).toMatchObject({ count: 1 });
      }
      const posts = v1.tap.exchanges.slice(before).filter((exchange) => exchange.httpMethod === 'POST');
      expect(new Set(posts.map(servedBy))).toEqual(new Set(REPLICAS));
      // One session throughout, whichever replica answered.
      expect(new Set(posts.map((exchange) => exchange.headers['mcp-session-id']))).toEqual(
        new Set([v1.transport.sessionId]),
      );
    });

    it("shows on each replica's dashboard the replica it is and the sessions of the whole cluster", async () => {
      for (const replica of REPLICAS) {
        const health = await fetch(`http://127.0.0.1:${replicas.get(replica)!.port}/admin/api/health`, {
          headers: { authorization: `Bearer ${DESK_KEYS.admin}` },
        }).then((response) => response.json() as Promise<{ host: { replica: string; clusterSessions: number } }>);
        expect(health.host).toMatchObject({ replica, clusterSessions: 1 });
      }
    });

    it('relays a long call’s progress over its SSE stream', async () => {
      const progress: number[] = [];
      const result = (await v1.client.callTool(
        { name: 'export_ticket_report', arguments: { status: 'open' } },
        undefined,
        { onprogress: ({ progress: done }) => void progress.push(done) },
      )) as CallToolResult;
      expect((result.content[0] as { text: string }).text).toMatch(/^Report of \d+ ticket\(s\) with status open/);
      expect(progress.length).toBeGreaterThan(1);
    });

    it('delivers on the GET stream what happens through other replicas: a subscribed ticket changed', async () => {
      const updated: string[] = [];
      v1.client.setNotificationHandler(
        ResourceUpdatedNotificationSchema,
        ({ params }) => void updated.push(params.uri),
      );
      await v1.client.subscribeResource({ uri: 'desk://tickets/T-2003' });
      // Each replica in turn changes the ticket: the client hears of every change, wherever its GET stream is.
      for (const [i, replica] of REPLICAS.entries()) {
        const response = await fetch(direct(replica), {
          method: 'POST',
          headers: sessionHeaders(),
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: `comment-${i}`,
            method: 'tools/call',
            params: {
              name: 'add_ticket_comment',
              arguments: { ticketId: 'T-2003', author: 'agent', body: `via ${replica}` },
            },
          }),
        });
        expect(response.status).toBe(200);
        await response.text();
        await waitFor(() => updated.length === i + 1, 5_000);
      }
      expect(updated).toEqual(REPLICAS.map(() => 'desk://tickets/T-2003'));
    });

    it('delivers list_changed on the GET stream when a tool is turned off through another replica', async () => {
      let changed = 0;
      v1.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
      for (const replica of REPLICAS) {
        const before = changed;
        const off = await fetch(
          `http://127.0.0.1:${replicas.get(replica)!.port}/admin/api/catalog/tool/search_customers/disable`,
          {
            method: 'POST',
            headers: { authorization: `Bearer ${DESK_KEYS.admin}`, 'content-type': 'application/json' },
            body: '{}',
          },
        );
        expect(off.status).toBe(200);
        await waitFor(() => changed > before, 5_000);
        // Every replica stopped listing it.
        for (const other of REPLICAS) {
          const list = await fetch(direct(other), {
            method: 'POST',
            headers: sessionHeaders(),
            body: JSON.stringify({ jsonrpc: '2.0', id: 'list', method: 'tools/list' }),
          });
          const { result } = (await list.json()) as { result: { tools: { name: string }[] } };
          expect(result.tools.map((tool) => tool.name)).not.toContain('search_customers');
        }
        const on = await fetch(
          `http://127.0.0.1:${replicas.get(replica)!.port}/admin/api/catalog/tool/search_customers/enable`,
          {
            method: 'POST',
            headers: { authorization: `Bearer ${DESK_KEYS.admin}`, 'content-type': 'application/json' },
            body: '{}',
          },
        );
        expect(on.status).toBe(200);
      }
    });

    it('takes the answer to an elicitation on another replica than the one whose call asked', async () => {
      const before = v1.tap.exchanges.length;
      const args = { ticketId: 'T-2001', resolution: 'Closed across replicas.' };
      const closed = (await v1.client.callTool({ name: 'close_ticket', arguments: args })) as CallToolResult;
      expect(closed.structuredContent).toMatchObject({ id: 'T-2001', status: 'closed', alreadyClosed: false });
      expect(questions.at(-1)).toBe(`Allow "Close a ticket" to run with ${JSON.stringify(args)}?`);
      const exchanges = v1.tap.exchanges.slice(before);
      const call = exchanges.find((exchange) => exchange.sent?.method === 'tools/call');
      const answer = exchanges.find(
        (exchange) => exchange.sent?.id !== undefined && exchange.sent.method === undefined,
      );
      expect(answer).toBeDefined();
      expect(servedBy(answer!)).not.toBe(servedBy(call!));
    });

    it('cancels a call on the replica running it when the cancellation lands on another', async () => {
      const abort = new AbortController();
      const before = v1.tap.exchanges.length;
      const call = v1.client.callTool({ name: 'export_ticket_report', arguments: {} }, undefined, {
        signal: abort.signal,
        onprogress: () => abort.abort('enough'),
      });
      await expect(call).rejects.toBeDefined();
      await waitFor(() =>
        v1.tap.exchanges.slice(before).some((exchange) => exchange.sent?.method === 'notifications/cancelled'),
      );
      const exchanges = v1.tap.exchanges.slice(before);
      const ranOn = servedBy(exchanges.find((exchange) => exchange.sent?.method === 'tools/call')!)!;
      const cancelledOn = servedBy(exchanges.find((exchange) => exchange.sent?.method === 'notifications/cancelled')!);
      expect(cancelledOn).not.toBe(ranOn);
      const [record] = await auditRecords(
        auditFile(ranOn),
        (r) => r.target === 'export_ticket_report' && r.outcome === 'cancelled',
      );
      expect(record).toMatchObject({ chain: ranOn });
    });

    it('runs a task on one replica and answers tasks/result on another', async () => {
      const before = v1.tap.exchanges.length;
      const { created, result } = await reportAsTask(v1.client);
      expect(created.task.status).toBe('working');
      expect((result.content[0] as { text: string }).text).toMatch(/^Report of \d+ ticket\(s\) with status closed/);
      const exchanges = v1.tap.exchanges.slice(before);
      const [createdOn, resultOn] = ['tools/call', 'tasks/result'].map((method) =>
        servedBy(exchanges.find((exchange) => exchange.sent?.method === method)!),
      );
      expect(resultOn).not.toBe(createdOn);
    });

    it("tells the session's GET stream, held by another replica, how a task it runs ends", async () => {
      const statuses: { taskId: string; status: string }[] = [];
      v1.client.setNotificationHandler(TaskStatusNotificationSchema, ({ params }) => void statuses.push(params));
      // The GET stream is where the client opened it; the task runs on another replica.
      const streamOn = servedBy(v1.tap.exchanges.filter((exchange) => exchange.httpMethod === 'GET').at(-1)!)!;
      const runner = REPLICAS.find((replica) => replica !== streamOn && replica !== REPLICAS[1])!;
      const created = await fetch(direct(runner), {
        method: 'POST',
        headers: sessionHeaders(),
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 'task-elsewhere',
          method: 'tools/call',
          params: { name: 'export_ticket_report', arguments: { status: 'open' }, task: {} },
        }),
      }).then((response) => response.json() as Promise<{ result: { task: { taskId: string } } }>);
      const { taskId } = created.result.task;
      await waitFor(() => statuses.some((status) => status.taskId === taskId && status.status === 'completed'), 10_000);
    });

    it('resumes a dropped stream with Last-Event-ID on another replica: the rest of the events, then the response', async () => {
      const abort = new AbortController();
      const response = await fetch(url, {
        method: 'POST',
        headers: sessionHeaders(),
        signal: abort.signal,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 'resumed-report',
          method: 'tools/call',
          params: { name: 'export_ticket_report', arguments: {}, _meta: { progressToken: 'resume-me' } },
        }),
      });
      const ranOn = response.headers.get(SERVED_BY)!;
      // Read until two progress events came, then drop the connection.
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = '';
      while ((text.match(/notifications\/progress/g) ?? []).length < 2) text += (await reader.read()).value ?? '';
      abort.abort();
      const ids = [...text.matchAll(/^id: ?(.+)$/gm)].map((match) => match[1].trim());
      const lastEventId = ids.at(-1)!;
      const seen = text.match(/"progress":(\d+)/g)!.map((match) => Number(match.split(':')[1]));

      const elsewhere = REPLICAS.find((replica) => replica !== ranOn)!;
      const resumed = await fetch(direct(elsewhere), {
        headers: { ...sessionHeaders(), accept: 'text/event-stream', 'last-event-id': lastEventId },
      });
      expect(resumed.status).toBe(200);
      const rest = await new SseReader(resumed).end(20_000);
      const progress = rest
        .filter((message) => message.method === 'notifications/progress')
        .map((message) => (message.params as { progress: number }).progress);
      // Nothing seen twice, nothing lost, and the response last.
      expect(progress.every((value) => value > Math.max(...seen))).toBe(true);
      expect(rest.at(-1)).toMatchObject({ id: 'resumed-report', result: { content: expect.any(Array) } });
    });

    it('keeps the session going when a replica dies', async () => {
      const dead = REPLICAS[1];
      await replicas.get(dead)!.kill();
      await waitForAsync(async () => {
        const ready = await fetch(`http://127.0.0.1:${proxy.port}/health/ready`).then(
          (r) => r.ok,
          () => false,
        );
        return ready;
      });
      const before = v1.tap.exchanges.length;
      for (let i = 0; i < 4; i++) {
        const result = (await v1.client.callTool({
          name: 'get_ticket',
          arguments: { ticketId: 'T-2002' },
        })) as CallToolResult;
        expect(result.isError).toBeFalsy();
      }
      const answeredBy = new Set(v1.tap.exchanges.slice(before).map(servedBy));
      expect(answeredBy.has(dead)).toBe(false);
      expect(answeredBy.size).toBe(2);
    });

    it('refuses with a clear 503 while Redis is down, and goes on with the same session once it is back', async () => {
      await redis.stop();
      const refused = await fetch(url, {
        method: 'POST',
        headers: sessionHeaders(),
        body: JSON.stringify({ jsonrpc: '2.0', id: 'during-outage', method: 'tools/list' }),
      });
      expect(refused.status).toBe(503);
      expect(await refused.json()).toMatchObject({
        error: {
          message: "Service Unavailable: the sessions the host's replicas share cannot be reached; retry shortly",
        },
      });
      await redis.start();
      await waitForAsync(
        // The proxy closes a connection after its own 503 page: a poll that lands on it tries again.
        async () =>
          (await fetch(`http://127.0.0.1:${proxy.port}/health/ready`).then(
            (r) => r.status,
            () => 0,
          )) === 200,
        20_000,
      );
      const sessionId = v1.transport.sessionId;
      const result = (await v1.client.callTool({
        name: 'get_ticket',
        arguments: { ticketId: 'T-2002' },
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(v1.transport.sessionId).toBe(sessionId);
    });

    it('ends the session on every replica with DELETE', async () => {
      const headers = sessionHeaders();
      await v1.transport.terminateSession();
      for (const replica of REPLICAS.filter((name) => name !== REPLICAS[1])) {
        const response = await fetch(direct(replica), {
          method: 'POST',
          headers,
          body: JSON.stringify({ jsonrpc: '2.0', id: 'after-delete', method: 'tools/list' }),
        });
        expect(response.status).toBe(404);
      }
    });
  });

  describe(`SDK v2 Client pinned to ${MODERN}: stateless, its subscriptions and tasks across replicas`, () => {
    let v2: ConnectedV2;
    beforeAll(async () => {
      v2 = await connectSdkV2(
        url,
        'scale-out-2026',
        { pin: MODERN },
        { headers: ADMIN, tasksExtension: true, elicit: () => ({ action: 'accept', content: { confirm: true } }) },
      );
    });
    afterAll(() => v2?.client.close());

    it('hears on its listen stream of a change made through another replica', async () => {
      const updated: string[] = [];
      v2.client.setNotificationHandler(
        'notifications/resources/updated',
        ({ params }) => void updated.push(params.uri),
      );
      const subscription = await v2.client.listen({ resourceSubscriptions: ['desk://tickets/T-2005'] });
      try {
        const listenedOn = servedBy(
          v2.tap.exchanges.filter((exchange) => exchange.sent?.method === 'subscriptions/listen').at(-1)!,
        );
        // The ticket changes through another replica's REST API (the same store, the same notifier).
        const elsewhere = REPLICAS.find((replica) => replica !== listenedOn && replica !== REPLICAS[1])!;
        const changed = await fetch(`http://127.0.0.1:${replicas.get(elsewhere)!.port}/api/tickets/T-2005`, {
          method: 'PATCH',
          headers: { ...ADMIN, 'content-type': 'application/json' },
          body: JSON.stringify({ priority: 'high' }),
        });
        expect(changed.status).toBe(200);
        await waitFor(() => updated.length > 0, 5_000);
        expect(updated).toEqual(['desk://tickets/T-2005']);
      } finally {
        await subscription.close();
      }
    });

    it('runs a confirmed call once: its retry sent again to any replica is asked again', async () => {
      const closed = await v2.client.callTool({
        name: 'close_ticket',
        arguments: { ticketId: 'T-2006', resolution: 'Confirmed once.' },
      });
      expect(closed.structuredContent).toMatchObject({ id: 'T-2006', status: 'closed', alreadyClosed: false });
      const [, retry] = v2.tap.requests('tools/call', 'close_ticket');
      expect(retry.sent!.params).toMatchObject({
        requestState: expect.any(String),
        inputResponses: expect.any(Object),
      });
      for (const replica of REPLICAS.filter((name) => name !== REPLICAS[1])) {
        const replay = new WireTap();
        await replay.fetch(direct(replica), {
          method: 'POST',
          headers: retry.headers,
          body: JSON.stringify(retry.sent),
        });
        const [exchange] = replay.exchanges;
        expect((await WireTap.answer(exchange))?.result).toMatchObject({ resultType: 'input_required' });
      }
      // The trail is written in batches after the answer: wait for the run's record, then count.
      const runs = async () =>
        (await Promise.all(REPLICAS.map((replica) => readAuditTrail(auditFile(replica)))))
          .flat()
          .filter(
            (record) =>
              record.target === 'close_ticket' && record.outcome === 'ok' && record.protocolVersion === MODERN,
          );
      await waitForAsync(async () => (await runs()).length > 0);
      expect(await runs()).toHaveLength(1);
    });

    it('polls a task created on one replica through the others until it completes', async () => {
      await v2.client
        .callTool({ name: 'export_ticket_report', arguments: { status: 'closed' } })
        .catch(() => undefined);
      const [call] = v2.tap.requests('tools/call', 'export_ticket_report');
      const created = (await WireTap.answer(call))?.result as { taskId: string };
      const createdOn = servedBy(call);
      const before = v2.tap.exchanges.length;
      let status = 'working';
      await waitForAsync(async () => {
        const task = await v2.client.request(
          { method: 'tasks/get', params: { taskId: created.taskId } },
          z.looseObject({ status: z.string() }),
        );
        status = task.status;
        return status !== 'working';
      }, 15_000);
      expect(status).toBe('completed');
      const polledOn = new Set(v2.tap.exchanges.slice(before).map(servedBy));
      expect([...polledOn].some((replica) => replica !== createdOn)).toBe(true);
    });
  });

  it('kept one audit trail per replica, each call recorded once where it ran', async () => {
    const trails = await Promise.all(REPLICAS.map((replica) => readAuditTrail(auditFile(replica))));
    const closes = trails.flat().filter((record) => record.target === 'close_ticket' && record.outcome === 'ok');
    // One by the 2025 session, one by the 2026 client: each once, however often its retry was sent.
    expect(closes).toHaveLength(2);
  });
});
