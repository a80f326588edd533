import type { INestApplication } from '@nestjs/common';
import type { CallToolResult, TextResourceContents } from '@modelcontextprotocol/sdk/types.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpResourceNotifier } from 'nest-mcp-host';
import { McpGateway } from '#libs/gateway';
import { McpModule } from '#libs/hosting';
import { hashApiKey } from '#libs/security';
import { DESK_KEYS, auditRecords, startDeskHost, type DeskHost } from './support/desk-host';
import { ERA_CLIENTS, LEGACY, MODERN, connectSdkV1, type EraClient } from './support/era-clients';
import { baseUrlOf, startTestApp } from './support/fixture-app';
import { waitFor } from './support/wait-for';

// Two desks and a gateway start in this process: on a busy CI machine that takes longer than
// jest's 5 s default, which is a limit for a hung test, not a timing goal.
jest.setTimeout(30_000);

const USER_KEY = 'gateway-desk-user-key-0123456789';
/** Each desk upstream, by the revision the gateway speaks with it. */
const UPSTREAMS = [
  { name: 'desk25', revision: LEGACY },
  { name: 'desk26', revision: MODERN },
] as const;

/**
 * Two instances of the support desk behind one gateway: one the gateway speaks 2025-11-25 with
 * (pinned), one it negotiates 2026-07-28 with (`auto`: the desk answers `server/discover`).
 * Clients of both eras use both through the gateway.
 */
describe('the gateway in front of two support desks, one per protocol revision', () => {
  const desks: Record<string, DeskHost> = {};
  let gateway: INestApplication;
  let url: string;

  beforeAll(async () => {
    for (const { name } of UPSTREAMS)
      desks[name] = await startDeskHost({
        AUTH_MODE: 'apiKey',
        MCP_API_KEYS_FILE: 'config/api-keys.example.json',
      });
    gateway = await startTestApp({
      imports: [
        McpModule.forRoot({
          name: 'front-desk',
          version: '1.0.0',
          auth: { mode: 'apiKey', keys: [{ hash: hashApiKey(USER_KEY), principal: 'alice', scopes: [] }] },
          gateway: {
            upstreams: UPSTREAMS.map(({ name, revision }) => ({
              name,
              ...(revision === LEGACY && { protocolVersion: LEGACY }),
              // The desk confirms its own destructive tools (confirmDestructive): the gateway leaves it to it.
              confirm: 'none' as const,
              transport: { type: 'http', url: desks[name].url, headers: { 'x-api-key': DESK_KEYS.admin } },
            })),
          },
        }),
      ],
    });
    url = `${await baseUrlOf(gateway)}/mcp`;
  });
  afterAll(async () => {
    await gateway?.close();
    for (const desk of Object.values(desks)) await desk.close();
  });

  it('speaks with each desk the revision it was given or negotiated', () => {
    const status = gateway.get(McpGateway).status();
    expect(status.map(({ name, state, protocolVersion }) => ({ name, state, protocolVersion }))).toEqual(
      UPSTREAMS.map(({ name, revision }) => ({ name, state: 'connected', protocolVersion: revision })),
    );
  });

  describe.each(ERA_CLIENTS)('$title', ({ title, connect }) => {
    let client: EraClient;
    /** The questions the client's user was asked. */
    const questions: string[] = [];
    beforeAll(async () => {
      client = await connect(url, `desk-gateway ${title}`, {
        headers: { 'x-api-key': USER_KEY },
        elicit: (message) => {
          questions.push(message);
          return { action: 'accept', content: { confirm: true } };
        },
      });
    });
    afterAll(() => client?.close());

    it.each(UPSTREAMS)("lists $name's tools and templates under its namespace", async ({ name }) => {
      const tools = (await client.listTools()).map((tool) => tool.name);
      expect(tools).toEqual(
        expect.arrayContaining([`${name}__get_ticket`, `${name}__close_ticket`, `${name}__export_ticket_report`]),
      );
      const templates = (await client.listResourceTemplates()).map((template) => template.uriTemplate);
      expect(templates).toContain(`${name}+kb://articles/{slug}`);
    });

    it.each(UPSTREAMS)('reads an article of $name through the rewritten template URI', async ({ name }) => {
      const { contents } = await client.readResource(`${name}+kb://articles/password-reset`);
      const [article] = contents as TextResourceContents[];
      expect(article.uri).toBe(`${name}+kb://articles/password-reset`);
      expect(article.text).toMatch(/^# .*password/i);
    });

    it.each(UPSTREAMS)("relays $name's progress of a long call", async ({ name }) => {
      const progress: number[] = [];
      const result = await client.callTool(
        `${name}__export_ticket_report`,
        { status: 'closed' },
        { onprogress: ({ progress: done }) => progress.push(done) },
      );
      expect(result.isError).toBeFalsy();
      expect(progress.length).toBeGreaterThan(0);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
    });

    it.each(UPSTREAMS)("cancels $name's call when the client gives up on it", async ({ name }) => {
      const abort = new AbortController();
      const call = client.callTool(
        `${name}__export_ticket_report`,
        {},
        { signal: abort.signal, onprogress: () => abort.abort('enough') },
      );
      await expect(call).rejects.toBeDefined();
      const [record] = await auditRecords(
        desks[name].auditFile,
        (r) => r.target === 'export_ticket_report' && r.outcome === 'cancelled',
      );
      expect(record).toMatchObject({ principal: 'desk-admin' });
    });

    it.each(UPSTREAMS)(
      "asks the client to confirm $name's destructive tool, and the desk acts on the answer",
      async ({ name }) => {
        const created = await client.callTool(`${name}__create_ticket`, {
          customerId: 'C-1001',
          subject: `Relayed confirmation through ${title}`,
          description: 'The gateway relays the desk’s question to the client that made the call.',
          priority: 'low',
        });
        const { id } = created.structuredContent as { id: string };
        questions.length = 0;
        const closed = await client.callTool(`${name}__close_ticket`, {
          ticketId: id,
          resolution: 'Confirmed by the user',
        });
        // The desk's question, once: the gateway, told the desk confirms its own, does not ask too.
        expect(questions).toEqual([
          `Allow "Close a ticket" to run with {"ticketId":"${id}","resolution":"Confirmed by the user"}?`,
        ]);
        expect(closed.isError).toBeFalsy();
        expect(closed.structuredContent).toMatchObject({ id, status: 'closed', alreadyClosed: false });
        const [record] = await auditRecords(
          desks[name].auditFile,
          (r) => r.target === 'close_ticket' && r.outcome === 'ok',
        );
        expect(record).toMatchObject({ principal: 'desk-admin' });
      },
    );
  });

  it.each(UPSTREAMS)(
    "tells a subscribed client when one of $name's resources changes (resources/subscribe or subscriptions/listen upstream)",
    async ({ name }) => {
      const { client } = await connectSdkV1(url, 'subscriber', { headers: { 'x-api-key': USER_KEY } });
      try {
        const updated: string[] = [];
        client.setNotificationHandler(ResourceUpdatedNotificationSchema, ({ params }) => void updated.push(params.uri));
        await client.subscribeResource({ uri: `${name}+kb://articles/vat-rates` });
        desks[name].app.get(McpResourceNotifier).resourceUpdated('kb://articles/vat-rates');
        await waitFor(() => updated.length > 0, 5_000);
        expect(updated).toEqual([`${name}+kb://articles/vat-rates`]);
      } finally {
        await client.close();
      }
    },
  );

  it('maps a 2026 desk’s unknown article to the gateway’s own resource-not-found, like a 2025 desk’s', async () => {
    const { client } = await connectSdkV1(url, 'reader', { headers: { 'x-api-key': USER_KEY } });
    try {
      for (const { name } of UPSTREAMS)
        await expect(client.readResource({ uri: `${name}+kb://articles/no-such-article` })).rejects.toMatchObject({
          code: -32002,
        });
    } finally {
      await client.close();
    }
  });

  it('keeps the result of a 2026 desk free of the 2026 resultType for a 2025 client', async () => {
    const { client } = await connectSdkV1(url, 'legacy', { headers: { 'x-api-key': USER_KEY } });
    try {
      const result = (await client.callTool({
        name: 'desk26__get_ticket',
        arguments: { ticketId: 'T-2001' },
      })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect(result).not.toHaveProperty('resultType');
    } finally {
      await client.close();
    }
  });
});
