import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Injectable, type INestApplication } from '@nestjs/common';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  LoggingMessageNotificationSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { McpArgs, McpCatalog, McpContext, McpTool, type McpCallContext } from 'nest-mcp-host';
import { McpGateway } from '#libs/gateway';
import { McpModule } from '#libs/hosting';
import { hashApiKey } from '#libs/security';
import { auditRecords } from './support/desk-host';
import { baseUrlOf, connectHttpClient, startTestApp } from './support/fixture-app';
import { waitFor, waitForAsync } from './support/wait-for';

// Upstream processes start, restart and are killed here: on a busy CI machine that takes longer
// than jest's 5 s default, which is a limit for a hung test, not a timing goal.
jest.setTimeout(30_000);

const KEYS = { gateway: 'gateway-service-key-0123456789', user: 'gateway-user-key-0123456789' };

@Injectable()
class InventoryTools {
  @McpTool({
    description: 'Counts the items of a shelf',
    input: { type: 'object', properties: { shelf: { type: 'string' } } },
  })
  count(@McpArgs() { shelf }: { shelf: string }, @McpContext() context: McpCallContext) {
    return { shelf, count: 12, caller: context.caller.id };
  }

  @McpTool({
    description: 'Says where a shelf is',
    // A 2026-07-28 client must mirror this argument in an `Mcp-Param-Shelf` header.
    input: { type: 'object', properties: { shelf: { type: 'string', 'x-mcp-header': 'Shelf' } }, required: ['shelf'] },
  })
  locate(@McpArgs() { shelf }: { shelf: string }) {
    return `${shelf} is in the north hall`;
  }

  @McpTool({ description: 'Audits a shelf, saying what it does' })
  audit(@McpContext() context: McpCallContext) {
    context.log.info({ step: 'counting', shelf: 'B7' });
    context.log.warning('two boxes are damaged');
    return 'audited';
  }
}

/** One of our own hosts as the upstream of another: identity, audit and trace context across the two. */
describe('the gateway in front of another nest-mcp-host', () => {
  const upstreamAudit = join(tmpdir(), `upstream-audit-${randomUUID()}.jsonl`);
  const gatewayAudit = join(tmpdir(), `gateway-audit-${randomUUID()}.jsonl`);
  let upstream: INestApplication;
  let gateway: INestApplication;
  let client: Client;

  beforeAll(async () => {
    upstream = await startTestApp({
      imports: [
        McpModule.forRoot({
          name: 'inventory',
          version: '2.0.0',
          auth: { mode: 'apiKey', keys: [{ hash: hashApiKey(KEYS.gateway), principal: 'desk-gateway', scopes: [] }] },
          audit: { file: upstreamAudit, flushIntervalMs: 10 },
        }),
      ],
      providers: [InventoryTools],
    });
    const upstreamUrl = await baseUrlOf(upstream);

    gateway = await startTestApp({
      imports: [
        McpModule.forRoot({
          name: 'desk',
          version: '1.0.0',
          auth: { mode: 'apiKey', keys: [{ hash: hashApiKey(KEYS.user), principal: 'alice', scopes: [] }] },
          audit: { file: gatewayAudit, flushIntervalMs: 10 },
          gateway: {
            upstreams: [
              {
                name: 'inventory',
                transport: { type: 'http', url: `${upstreamUrl}/mcp`, headers: { 'x-api-key': KEYS.gateway } },
              },
            ],
          },
        }),
      ],
    });
    const gatewayUrl = await baseUrlOf(gateway);
    client = await connectHttpClient(`${gatewayUrl}/mcp`, { 'x-api-key': KEYS.user });
  });
  afterAll(async () => {
    await client?.close();
    await gateway?.close();
    await upstream?.close();
  });

  it("calls the upstream as the gateway, never with the caller's credential, and both audit trails agree", async () => {
    const traceId = randomUUID().replace(/-/g, '');
    const traceparent = `00-${traceId}-${'ab'.repeat(8)}-01`;
    const result = (await client.callTool({
      name: 'inventory__count',
      arguments: { shelf: 'B7' },
      _meta: { traceparent },
    })) as CallToolResult;
    expect(result.structuredContent).toEqual({ shelf: 'B7', count: 12, caller: 'desk-gateway' });

    const [atGateway] = await auditRecords(gatewayAudit, (r) => r.target === 'inventory__count');
    expect(atGateway).toMatchObject({ principal: 'alice', outcome: 'ok', route: 'upstream inventory: count', traceId });
    const [atUpstream] = await auditRecords(upstreamAudit, (r) => r.target === 'count');
    expect(atUpstream).toMatchObject({ principal: 'desk-gateway', outcome: 'ok', traceId });
  });

  it('speaks 2026-07-28 with it (what it offers), with the headers that revision requires', async () => {
    expect(gateway.get(McpGateway).status()[0]).toMatchObject({ state: 'connected', protocolVersion: '2026-07-28' });
    // The upstream refuses a call whose Mcp-Param-Shelf header is missing or differs (-32020); a
    // value that is not visible ASCII travels Base64-encoded.
    for (const shelf of ['B7', 'Zürich 7', '  padded ']) {
      const result = (await client.callTool({ name: 'inventory__locate', arguments: { shelf } })) as CallToolResult;
      expect(result.content).toEqual([{ type: 'text', text: `${shelf} is in the north hall` }]);
    }
  });

  it('relays what the upstream logs during a call to the client that made it', async () => {
    const messages: { level: string; data: unknown }[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => void messages.push(params));
    await client.setLoggingLevel('debug');
    const result = (await client.callTool({ name: 'inventory__audit', arguments: {} })) as CallToolResult;
    expect(result.content).toEqual([{ type: 'text', text: 'audited' }]);
    await waitFor(() => messages.length >= 2);
    expect(messages.map(({ level, data }) => [level, data])).toEqual([
      ['info', { step: 'counting', shelf: 'B7' }],
      ['warning', 'two boxes are damaged'],
    ]);
  });

  it("follows the upstream's catalog changes and tells the gateway's clients", async () => {
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    upstream.get(McpCatalog).addTool({ name: 'restock', description: 'Orders more of an item' }, () => 'ordered');
    await waitFor(() => changed > 0);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'inventory__audit',
      'inventory__count',
      'inventory__locate',
      'inventory__restock',
    ]);
    const restocked = (await client.callTool({ name: 'inventory__restock', arguments: {} })) as CallToolResult;
    expect(restocked.content).toEqual([{ type: 'text', text: 'ordered' }]);

    const before = changed;
    upstream.get(McpCatalog).remove('tool', 'restock');
    await waitFor(() => changed > before);
    await waitForAsync(async () => (await client.listTools()).tools.length === 3);
    const after = await client.listTools();
    expect(after.tools.map((tool) => tool.name).sort()).toEqual([
      'inventory__audit',
      'inventory__count',
      'inventory__locate',
    ]);
  });
});
