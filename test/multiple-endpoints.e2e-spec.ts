import { Injectable, Module, type DynamicModule, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { z } from 'zod';
import { McpArgs, McpStartupError, McpTool } from '#libs/core';
import { McpCatalog } from '#libs/catalog';
import { McpEndpoints, McpModule, type McpModuleOptions } from '#libs/hosting';
import { hashApiKey } from '#libs/security';
import { connectHttpClient } from './support/fixture-app';

const SUPPORT_KEY = 'sk_support_0123456789';
const BILLING_KEY = 'bk_billing_0123456789';

@Injectable()
class SupportTools {
  @McpTool({ description: 'Opens a support ticket', input: z.object({ subject: z.string() }) })
  open_ticket(@McpArgs() { subject }: { subject: string }) {
    return `ticket opened: ${subject}`;
  }

  @McpTool({ description: 'Finds a customer' })
  find_customer() {
    return 'ACME Ltd';
  }
}

@Injectable()
class BillingTools {
  @McpTool({ description: 'Sends an invoice', input: z.object({ customer: z.string() }) })
  send_invoice(@McpArgs() { customer }: { customer: string }) {
    return `invoice sent to ${customer}`;
  }
}

@Module({ providers: [SupportTools] })
class SupportModule {}

@Module({ providers: [BillingTools] })
class BillingModule {}

/** Two endpoints, each with the tools of its own feature module and keys of its own. */
const supportEndpoint = (extra: Partial<McpModuleOptions> = {}) =>
  McpModule.forRoot({
    name: 'support',
    version: '1.0.0',
    path: '/mcp/support',
    include: [SupportModule],
    auth: { mode: 'apiKey', keys: [{ hash: hashApiKey(SUPPORT_KEY), principal: 'support-agent' }] },
    ...extra,
  });

const billingEndpoint = (extra: Partial<McpModuleOptions> & { health?: boolean } = {}) =>
  McpModule.forRootAsync({
    useFactory: () => ({
      name: 'billing',
      version: '2.0.0',
      path: '/mcp/billing',
      include: [BillingModule],
      auth: { mode: 'apiKey', keys: [{ hash: hashApiKey(BILLING_KEY), principal: 'billing-bot' }] },
      admin: false,
      metrics: false,
      ...extra,
    }),
    health: extra.health ?? false,
  });

async function startupError(imports: DynamicModule[]): Promise<McpStartupError> {
  const error = await Test.createTestingModule({ imports: [SupportModule, BillingModule, ...imports] })
    .compile()
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(McpStartupError);
  return error as McpStartupError;
}

describe('Several MCP endpoints in one Nest application', () => {
  let app: INestApplication;
  let base: string;
  let support: Client;
  let billing: Client;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [SupportModule, BillingModule, supportEndpoint(), billingEndpoint()],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    support = await connectHttpClient(`${base}/mcp/support`, { 'x-api-key': SUPPORT_KEY });
    billing = await connectHttpClient(`${base}/mcp/billing`, { authorization: `Bearer ${BILLING_KEY}` });
  });
  afterAll(async () => {
    await support?.close();
    await billing?.close();
    await app?.close();
  });

  it('announces each endpoint under its own name and version', () => {
    expect(support.getServerVersion()).toMatchObject({ name: 'support', version: '1.0.0' });
    expect(billing.getServerVersion()).toMatchObject({ name: 'billing', version: '2.0.0' });
  });

  it('lists on each endpoint only the tools of its own feature module', async () => {
    expect((await support.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['find_customer', 'open_ticket']);
    expect((await billing.listTools()).tools.map((tool) => tool.name)).toEqual(['send_invoice']);
  });

  it('calls each endpoint’s tools, and answers a tool of the other endpoint as unknown', async () => {
    expect(await support.callTool({ name: 'open_ticket', arguments: { subject: 'printer on fire' } })).toEqual({
      content: [{ type: 'text', text: 'ticket opened: printer on fire' }],
    });
    expect(await billing.callTool({ name: 'send_invoice', arguments: { customer: 'ACME' } })).toEqual({
      content: [{ type: 'text', text: 'invoice sent to ACME' }],
    });
    await expect(billing.callTool({ name: 'open_ticket', arguments: { subject: 'x' } })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool: open_ticket'),
    });
    await expect(support.callTool({ name: 'send_invoice', arguments: { customer: 'x' } })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool: send_invoice'),
    });
  });

  it('authenticates each endpoint with its own keys: a key of one is refused (401) by the other', async () => {
    const initialize = (path: string, headers: Record<string, string>) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
        }),
      });
    const supportKeyOnBilling = await initialize('/mcp/billing', { 'x-api-key': SUPPORT_KEY });
    expect(supportKeyOnBilling.status).toBe(401);
    expect(supportKeyOnBilling.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect((await initialize('/mcp/support', { authorization: `Bearer ${BILLING_KEY}` })).status).toBe(401);
    expect((await initialize('/mcp/support', { 'x-api-key': SUPPORT_KEY })).status).toBe(200);
    await expect(connectHttpClient(`${base}/mcp/billing`, { 'x-api-key': SUPPORT_KEY })).rejects.toThrow();
  });

  it('leaves other paths to the application: one health probe, the dashboard of the endpoint that has it, 404 elsewhere', async () => {
    const ready = await fetch(`${base}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      status: 'ok',
      info: { mcp: { status: 'up', phase: 'ready', tools: 2 } },
    });
    expect((await fetch(`${base}/admin`)).status).toBe(200);
    expect((await fetch(`${base}/mcp`)).status).toBe(404);
  });

  it('reaches a given endpoint’s services through McpEndpoints, by name', async () => {
    const endpoints = app.get(McpEndpoints);
    expect(endpoints.all().map(({ name, path, authMode }) => ({ name, path, authMode }))).toEqual([
      { name: 'support', path: '/mcp/support', authMode: 'apiKey' },
      { name: 'billing', path: '/mcp/billing', authMode: 'apiKey' },
    ]);
    const catalog = endpoints.get('billing').get(McpCatalog);
    expect(catalog).not.toBe(endpoints.get('support').get(McpCatalog));
    catalog.addTool({ name: 'refund', description: 'Refunds an invoice' }, () => 'refunded');
    try {
      expect((await billing.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['refund', 'send_invoice']);
      expect((await support.listTools()).tools.map((tool) => tool.name).sort()).toEqual([
        'find_customer',
        'open_ticket',
      ]);
      expect(await billing.callTool({ name: 'refund' })).toEqual({ content: [{ type: 'text', text: 'refunded' }] });
    } finally {
      catalog.remove('tool', 'refund');
    }
    expect(() => endpoints.get('sales')).toThrow(
      'No MCP endpoint is named "sales"; the application has "support", "billing". Use the `name` given to McpModule.forRoot().',
    );
  });
});

describe('A feature module importing the same endpoint object as the root module', () => {
  it('gets that endpoint’s services injected (Nest treats one dynamic module object as one module)', async () => {
    const billingMcp = billingEndpoint();

    @Injectable()
    class RefundSetup {
      constructor(readonly catalog: McpCatalog) {}

      onModuleInit() {
        this.catalog.addTool({ name: 'refund', description: 'Refunds an invoice' }, () => 'refunded');
      }
    }

    @Module({ imports: [billingMcp], providers: [RefundSetup] })
    class RefundModule {}

    const moduleRef = await Test.createTestingModule({
      imports: [SupportModule, BillingModule, RefundModule, supportEndpoint(), billingMcp],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    const base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    const billing = await connectHttpClient(`${base}/mcp/billing`, { 'x-api-key': BILLING_KEY });
    const support = await connectHttpClient(`${base}/mcp/support`, { 'x-api-key': SUPPORT_KEY });
    try {
      expect(app.get(McpEndpoints).all()).toHaveLength(2);
      expect(app.get(RefundSetup).catalog).toBe(app.get(McpEndpoints).get('billing').get(McpCatalog));
      expect((await billing.listTools()).tools.map((tool) => tool.name).sort()).toEqual(['refund', 'send_invoice']);
      expect((await support.listTools()).tools.map((tool) => tool.name).sort()).toEqual([
        'find_customer',
        'open_ticket',
      ]);
    } finally {
      await billing.close();
      await support.close();
      await app.close();
    }
  });
});

describe('Start-up errors of endpoints that clash', () => {
  it('refuses two endpoints on the same path, saying how to fix it', async () => {
    const error = await startupError([supportEndpoint(), billingEndpoint({ path: '/mcp/support' })]);
    expect(error.diagnostics).toEqual([
      {
        where: 'McpModule "billing" option "path"',
        problem: 'the path \'/mcp/support\' is already taken by the Streamable HTTP endpoint of McpModule "support"',
        fix: "give each endpoint a path of its own, e.g. path: '/mcp/support' and path: '/mcp/billing'",
      },
    ]);
  });

  it('reports every surface two endpoints both claim at once: name, dashboard, metrics, health probes, stdio', async () => {
    const error = await startupError([
      supportEndpoint({ stdio: true }),
      McpModule.forRoot({
        name: 'support',
        version: '1.0.0',
        path: '/mcp/other',
        include: [BillingModule],
        stdio: true,
        auth: { mode: 'apiKey', keys: [{ hash: hashApiKey(BILLING_KEY), principal: 'b' }] },
      }),
    ]);
    expect(error.diagnostics.map(({ where, problem }) => `${where}: ${problem}`)).toEqual([
      'McpModule "support" option "name": the name "support" is already taken by the server name of McpModule "support"',
      'McpModule "support" option "admin": the path \'/admin\' is already taken by the admin dashboard of McpModule "support"',
      'McpModule "support" option "metrics": the path \'/metrics\' is already taken by the Prometheus metrics of McpModule "support"',
      'McpModule "support" option "health": the path \'/health\' is already taken by the health probes (/health/live, /health/ready) of McpModule "support"',
      'McpModule "support" option "stdio": stdin/stdout is already taken by the stdio transport of McpModule "support"',
    ]);
    expect(error.message).toContain(
      'fix: keep the probes on one endpoint: set health: false in the McpModule.forRoot() of the others',
    );
    expect(error.message).toContain(
      "fix: keep the dashboard on one endpoint (admin: false on the others), or give each its own: admin: { path: '/admin/billing' }",
    );
    expect(error.message).toContain('fix: one process has one stdin/stdout: set stdio: true on one endpoint only');
  });

  it('refuses an endpoint on the dashboard path of another', async () => {
    const error = await startupError([supportEndpoint(), billingEndpoint({ path: '/admin' })]);
    expect(error.diagnostics.map(({ where, problem }) => `${where}: ${problem}`)).toEqual([
      'McpModule "billing" option "path": the path \'/admin\' is already taken by the admin dashboard of McpModule "support" (here: the Streamable HTTP endpoint)',
    ]);
  });

  it('starts endpoints that keep to their own paths, each with its own dashboard and metrics', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        SupportModule,
        BillingModule,
        supportEndpoint(),
        billingEndpoint({ admin: { path: '/admin/billing' }, metrics: { path: '/metrics/billing' } }),
      ],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    try {
      const base = (await app.getUrl()).replace('[::1]', '127.0.0.1');
      const catalog = async (path: string, key: string) => {
        const response = await fetch(`${base}${path}/api/catalog`, { headers: { 'x-api-key': key } });
        return { status: response.status, body: (await response.json()) as { tools?: { name: string }[] } };
      };
      // Neither key has the admin role; each dashboard answers with its own endpoint's authentication.
      expect((await catalog('/admin', SUPPORT_KEY)).status).toBe(403);
      expect((await catalog('/admin', BILLING_KEY)).status).toBe(401);
      expect((await catalog('/admin/billing', BILLING_KEY)).status).toBe(403);
      expect((await catalog('/admin/billing', SUPPORT_KEY)).status).toBe(401);
      expect((await fetch(`${base}/metrics/billing`, { headers: { 'x-api-key': SUPPORT_KEY } })).status).toBe(401);
    } finally {
      await app.close();
    }
  });
});
