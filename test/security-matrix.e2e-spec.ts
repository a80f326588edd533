import { PassThrough } from 'node:stream';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioTransport } from '#libs/hosting';
import { REACHED, SecurityFixtureModule } from './fixtures/security.fixtures';
import { connectHttpClient, startFixtureApp } from './support/fixture-app';
import { credentialRefusals, startIssuer, type TestIssuer } from './support/issuer';
import { StreamClientTransport } from './support/stream-client.transport';

type Target = 'tool' | 'prompt' | 'resource' | 'list';
const TARGETS: Target[] = ['tool', 'prompt', 'resource', 'list'];

const requestFor: Record<Target, { method: string; params: Record<string, unknown> }> = {
  tool: { method: 'tools/call', params: { name: 'readTicket', arguments: { id: 'T-1' } } },
  prompt: { method: 'prompts/get', params: { name: 'reportPrompt' } },
  resource: { method: 'resources/read', params: { uri: 'desk://queue' } },
  list: { method: 'tools/list', params: {} },
};

/** What a caller without the entry's scope must see: nothing, exactly as if it did not exist. */
async function expectHidden(client: Client, target: Target): Promise<void> {
  switch (target) {
    case 'tool':
      return void (await expect(
        client.callTool({ name: 'readTicket', arguments: { id: 'T-1' } }),
      ).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('Unknown tool: readTicket') }));
    case 'prompt':
      return void (await expect(client.getPrompt({ name: 'reportPrompt' })).rejects.toMatchObject({
        code: -32602,
        message: expect.stringContaining('Unknown prompt: reportPrompt'),
      }));
    case 'resource':
      return void (await expect(client.readResource({ uri: 'desk://queue' })).rejects.toMatchObject({ code: -32002 }));
    case 'list':
      return void expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('readTicket');
  }
}

async function expectAllowed(client: Client, target: Target): Promise<void> {
  switch (target) {
    case 'tool':
      return void expect(await client.callTool({ name: 'readTicket', arguments: { id: 'T-1' } })).toEqual({
        content: [{ type: 'text', text: 'ticket T-1' }],
      });
    case 'prompt':
      return void expect((await client.getPrompt({ name: 'reportPrompt' })).messages).toHaveLength(1);
    case 'resource':
      return void expect((await client.readResource({ uri: 'desk://queue' })).contents[0]).toMatchObject({
        text: 'queue',
      });
    case 'list':
      return void expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('readTicket');
  }
}

describe('security matrix over Streamable HTTP (OAuth)', () => {
  let app: INestApplication;
  let url: string;
  let issuer: TestIssuer;

  beforeAll(async () => {
    issuer = await startIssuer();
    ({ app, url } = await startFixtureApp(
      {
        mode: 'stateless',
        authFailureLimit: { limit: 1_000, windowMs: 60_000 }, // the matrix fails on purpose many times
        auth: {
          mode: 'oauth',
          issuer: issuer.issuer,
          jwksUri: issuer.jwksUri,
          resource: 'http://127.0.0.1/mcp',
          requiredScopes: ['mcp'],
        },
      },
      (options) => SecurityFixtureModule.register(options),
    ));
  });
  afterAll(async () => {
    await app.close();
    await issuer.close();
  });

  const refusals = credentialRefusals(() => issuer, 'tickets:read reports');

  describe.each(TARGETS)('%s', (target) => {
    it.each(refusals)('is refused with %s, before any code runs', async (_label, token, status, message) => {
      const reached = REACHED.length;
      const credential = await token();
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'mcp-protocol-version': '2025-11-25',
          ...(credential && { authorization: `Bearer ${credential}` }),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, ...requestFor[target] }),
      });
      expect(response.status).toBe(status);
      expect(((await response.json()) as { error: { message: string } }).error.message).toContain(message);
      expect(REACHED.length).toBe(reached);
    });

    it('is hidden from a caller without the entry scope, before any code runs', async () => {
      const reached = REACHED.length;
      const client = await connectHttpClient(url, { authorization: `Bearer ${await issuer.sign({ scope: 'mcp' })}` });
      try {
        await expectHidden(client, target);
      } finally {
        await client.close();
      }
      expect(REACHED.length).toBe(reached);
    });

    it('is served to a caller with the scopes', async () => {
      const client = await connectHttpClient(url, {
        authorization: `Bearer ${await issuer.sign({ scope: 'mcp tickets:read reports' })}`,
      });
      try {
        await expectAllowed(client, target);
      } finally {
        await client.close();
      }
    });
  });
});

describe('security matrix over stdio (the configured principal)', () => {
  async function stdioClient(scopes: string[]): Promise<{ client: Client; close: () => Promise<void> }> {
    const moduleRef = await Test.createTestingModule({
      imports: [SecurityFixtureModule.register({ http: false, stdioPrincipal: { id: 'operator', scopes } })],
    }).compile();
    await moduleRef.init();
    const toServer = new PassThrough();
    const fromServer = new PassThrough();
    void moduleRef.get(StdioTransport).connect(toServer, fromServer);
    const client = new Client({ name: 'stdio', version: '1' });
    await client.connect(new StreamClientTransport(fromServer, toServer));
    return { client, close: async () => (await client.close(), await moduleRef.close()) };
  }

  it.each(TARGETS)('%s: hidden without the scope, served with it', async (target) => {
    const reached = REACHED.length;
    const denied = await stdioClient([]);
    await expectHidden(denied.client, target).finally(denied.close);
    expect(REACHED.length).toBe(reached);
    const allowed = await stdioClient(['tickets:read', 'reports']);
    await expectAllowed(allowed.client, target).finally(allowed.close);
  });
});
