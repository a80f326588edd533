import { ERA_CLIENTS, LEGACY, MODERN, type ElicitAnswer, type EraClient } from './support/era-clients';
import { auditRecords, DESK_HTTP_TOOLS, DESK_RESOURCES, startDeskHost, type DeskHost } from './support/desk-host';
import { WireTap, type WireMessage } from './support/wire-tap';
import type { TestPlatform } from './support/fixture-app';

const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;
const ACCEPT: ElicitAnswer = { action: 'accept', content: { confirm: true } };

/**
 * One support-desk host (src/) serves the 2025-11-25 clients in the field and the stateless
 * 2026-07-28 revision on the same endpoint. Each real client below does what an agent does with
 * the desk — list, call, get the model's mistakes explained, follow progress, cancel, read the
 * knowledge base, use the triage prompt, and close a ticket once its user agreed — and gets the
 * same answers whichever revision it speaks. The host runs in both of its modes: the 2025 client
 * is then stateful (a session) or stateless; a 2026 client is stateless either way.
 */
/**
 * Fastify in one mode only: the MCP path is served on the `node:http` server in front of either
 * framework alike; what differs (the approvals API a stateless 2025 call needs) is in this mode.
 */
const SETUPS: [TestPlatform, 'stateful' | 'stateless'][] = [
  ['express', 'stateful'],
  ['express', 'stateless'],
  ['fastify', 'stateless'],
];

describe.each(SETUPS)('one support-desk host on %s (MCP_MODE=%s), both eras', (platform, mode) => {
  let host: DeskHost;
  beforeAll(async () => {
    host = await startDeskHost({ MCP_MODE: mode }, platform);
  });
  afterAll(() => host.close());

  describe.each(ERA_CLIENTS.map((era, index) => ({ ...era, index })))('$title', (era) => {
    const name = `eras-${mode}-${era.index}`;
    const questions: string[] = [];
    let answer: ElicitAnswer = ACCEPT;
    let client: EraClient;

    beforeAll(async () => {
      client = await era.connect(host.url, name, { elicit: (question) => (questions.push(question), answer) });
    });
    afterAll(() => client?.close());

    it(`speaks ${era.expected}${era.expected === MODERN ? ': server/discover, no initialize, no session' : ''}`, () => {
      expect(client.protocolVersion()).toBe(era.expected);
      const methods = client.tap.exchanges.flatMap((exchange) => exchange.sent?.method ?? []);
      if (era.expected === MODERN) {
        expect(client.sessionId()).toBeUndefined();
        expect(methods).toContain('server/discover');
        expect(methods).not.toContain('initialize');
        expect(client.tap.exchanges.every((exchange) => exchange.httpMethod === 'POST')).toBe(true);
      } else {
        expect(methods.slice(0, 2)).toEqual(['initialize', 'notifications/initialized']);
        expect(client.sessionId() !== undefined).toBe(mode === 'stateful');
      }
    });

    it('lists the desk tools with their annotations and schemas', async () => {
      const tools = new Map((await client.listTools()).map((tool) => [tool.name, tool]));
      expect([...tools.keys()].sort()).toEqual(DESK_HTTP_TOOLS);
      expect(tools.get('close_ticket')!.annotations).toMatchObject({ destructiveHint: true, idempotentHint: true });
      expect(tools.get('search_tickets')!.inputSchema.properties).toMatchObject({
        limit: { type: 'integer', minimum: 1, maximum: 100 },
      });
      expect(tools.get('get_ticket')!.outputSchema).toMatchObject({ type: 'object' });
    });

    it('calls a tool and gets its structured result', async () => {
      const found = await client.callTool('search_customers', { query: 'contoso' });
      expect(found.isError).toBeFalsy();
      expect(found.structuredContent).toEqual({
        customers: [{ id: 'C-1002', name: 'Bruno Costa', company: 'Contoso Ltd', tier: 'premium' }],
        count: 1,
      });
      const ticket = await client.callTool('get_ticket', { ticketId: 'T-2001' });
      expect(ticket.structuredContent).toMatchObject({ id: 'T-2001', customerId: expect.any(String) });
    });

    it('tells the model how to correct bad arguments, and refuses an unknown tool', async () => {
      const bad = await client.callTool('search_tickets', { limit: '3', customerId: 1001 });
      expect(bad).toEqual({
        content: [
          {
            type: 'text',
            text: 'Invalid arguments for tool "search_tickets":\n- customerId: must be a string, not the number 1001\n- limit: must be an integer, not the string "3"',
          },
        ],
        isError: true,
      });
      await expect(client.callTool('reopen_everything', {})).rejects.toMatchObject({ code: -32602 });
    });

    it('reports the progress of a long call, in order, before its result', async () => {
      const progress: number[] = [];
      const report = await client.callTool(
        'export_ticket_report',
        { status: 'open' },
        { onprogress: (update) => void progress.push(update.progress) },
      );
      expect(textOf(report)).toMatch(/^Report of \d+ ticket\(s\) with status open: \d+ open\.$/);
      expect(report.content[1]).toMatchObject({ type: 'resource', resource: { mimeType: 'text/csv' } });
      expect(progress.length).toBeGreaterThan(1);
      expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    });

    it('stops a call the client cancels, audits it as cancelled, and goes on serving', async () => {
      const since = Date.now();
      const controller = new AbortController();
      const cancelled = client.callTool(
        'export_ticket_report',
        {},
        { signal: controller.signal, onprogress: () => controller.abort('enough') },
      );
      await expect(cancelled).rejects.toThrow();
      // A 2025 client sends notifications/cancelled; a 2026 client closes the request's stream.
      const [record] = await auditRecords(
        host.auditFile,
        (record) => Date.parse(record.time) >= since && record.target === 'export_ticket_report',
      );
      // A stateless 2025 request names no client (that was said once, in its initialize); a 2026 one always does.
      const clientInfo = era.expected === LEGACY && mode === 'stateless' ? null : { name, version: '1.0.0' };
      expect(record).toMatchObject({ method: 'tools/call', outcome: 'cancelled', client: clientInfo });
      const next = await client.callTool('search_tickets', { limit: 1 });
      expect(next.structuredContent).toMatchObject({ count: 1 });
    });

    it('gets the triage prompt, and a specific error without its argument', async () => {
      const prompt = await client.getPrompt('triage_ticket', { ticketId: 'T-2001' });
      expect(prompt.messages[0].content).toMatchObject({
        type: 'resource',
        resource: { uri: 'desk://tickets/T-2001', mimeType: 'application/json' },
      });
      expect(prompt.messages[1].content).toMatchObject({
        text: expect.stringContaining('Triage ticket T-2001 above.'),
      });
      await expect(client.getPrompt('triage_ticket', {})).rejects.toMatchObject({ code: -32602 });
    });

    it("reads the knowledge base: the index resource, an article through the template, and an unknown one's error", async () => {
      expect((await client.listResources()).map((resource) => resource.uri)).toEqual(DESK_RESOURCES);
      expect((await client.listResourceTemplates()).map((template) => template.uriTemplate)).toEqual([
        'desk://tickets/{ticketId}',
        'kb://articles/{slug}',
      ]);
      const index = await client.readResource('kb://articles');
      expect(index.contents[0]).toMatchObject({
        mimeType: 'text/markdown',
        text: expect.stringContaining('vat-rates'),
      });
      const article = await client.readResource('kb://articles/vat-rates');
      expect(article.contents[0]).toMatchObject({
        uri: 'kb://articles/vat-rates',
        text: expect.stringMatching(/^# VAT on invoices\n/),
      });
      // 2026-07-28 answers a missing resource with -32602; 2025-11-25 had -32002.
      await expect(client.readResource('kb://articles/unknown')).rejects.toMatchObject({
        code: era.expected === MODERN ? -32602 : -32002,
        data: { uri: 'kb://articles/unknown' },
      });
    });

    const stateless2025 = era.expected === LEGACY && mode === 'stateless';
    const how = stateless2025
      ? 'holds close_ticket for an approver (a stateless 2025 host cannot ask the client)'
      : era.expected === MODERN
        ? "asks the user before close_ticket through an InputRequiredResult the client's handler answers"
        : "asks the user before close_ticket through elicitation/create on the call's stream";
    it(`${how}; runs it only once a person agreed`, async () => {
      const opened = await client.callTool('create_ticket', {
        customerId: 'C-1003',
        subject: `Closing from ${name}`,
        description: 'A ticket this client opens, so that closing it does not depend on the others.',
        priority: 'low',
      });
      const ticketId = (opened.structuredContent as { id: string }).id;
      const args = { ticketId, resolution: 'Solved on the phone.' };
      const question = `Allow "Close a ticket" to run with ${JSON.stringify(args)}?`;
      questions.length = 0;

      if (stateless2025) {
        const held = await client.callTool('close_ticket', args);
        expect(held.isError).toBe(true);
        expect(textOf(held)).toMatch(/^"close_ticket" needs a person's approval before it runs, and it was not run\./);
        const listed = (await (await fetch(`${host.base}/admin/api/approvals?status=pending`)).json()) as {
          approvals: { id: string; arguments: unknown }[];
        };
        const approval = listed.approvals.find(
          (candidate) => JSON.stringify(candidate.arguments) === JSON.stringify(args),
        );
        const decided = await fetch(`${host.base}/admin/api/approvals/${approval!.id}/approve`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ reason: 'the customer confirmed' }),
        });
        expect(decided.status).toBe(200);
        expect(questions).toEqual([]);
      }
      answer = { action: 'decline' };
      if (!stateless2025) {
        const declined = await client.callTool('close_ticket', args);
        expect(declined).toEqual({
          content: [
            {
              type: 'text',
              text: 'The user did not confirm "close_ticket" (decline); it was not run. Do not retry without asking the user.',
            },
          ],
          isError: true,
        });
        expect((await client.callTool('get_ticket', { ticketId })).structuredContent).toMatchObject({ status: 'open' });
      }
      answer = ACCEPT;
      const closed = await client.callTool('close_ticket', args);
      expect(closed).toMatchObject({ structuredContent: { id: ticketId, status: 'closed', alreadyClosed: false } });
      expect(questions).toEqual(stateless2025 ? [] : [question, question]);

      // How the question travelled, as each revision defines it.
      const legs = client.tap.requests('tools/call', 'close_ticket');
      const answers = await Promise.all(legs.map((leg) => WireTap.answer(leg)));
      if (era.expected === MODERN) {
        // Each confirmation is two requests: the call answered with input_required, then its retry
        // carrying the user's answer and the host's requestState back unchanged.
        expect(legs).toHaveLength(4);
        for (const first of [0, 2]) {
          const asked = answers[first]!.result!;
          expect(asked.resultType).toBe('input_required');
          const requests = Object.entries(asked.inputRequests as Record<string, WireMessage>);
          expect(requests).toHaveLength(1);
          const [key, request] = requests[0];
          expect(request).toMatchObject({ method: 'elicitation/create', params: { message: question } });
          const retry = legs[first + 1].sent!.params!;
          expect(Object.keys(retry.inputResponses as object)).toEqual([key]);
          expect(retry.inputResponses).toMatchObject({ [key]: first === 0 ? { action: 'decline' } : ACCEPT });
          expect(retry.requestState).toBe(asked.requestState);
          expect(legs[first + 1].sent!.id).not.toBe(legs[first].sent!.id);
        }
        expect(answers[3]!.result).toMatchObject({ resultType: 'complete', structuredContent: { status: 'closed' } });
        // Nothing ever came from the server unasked: no request of its own on any stream.
        const serverRequests = client.tap.exchanges.flatMap((exchange) =>
          exchange.received.filter((message) => message.method !== undefined && message.id !== undefined),
        );
        expect(serverRequests).toEqual([]);
      } else if (!stateless2025) {
        expect(legs).toHaveLength(2);
        for (const leg of legs)
          expect(leg.received.filter((message) => message.method === 'elicitation/create')).toMatchObject([
            { params: { message: question } },
          ]);
      }
    });
  });
});
