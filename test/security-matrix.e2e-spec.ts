import { PassThrough } from 'node:stream';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
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

/** The calls the matrix makes: the same names and shapes in the SDK v1 and v2 clients. */
type MatrixClient = Pick<Client, 'callTool' | 'getPrompt' | 'readResource' | 'listTools'>;

/** The two eras a request may speak, and what each answers for a resource that is not there. */
const ERAS = [
  { era: '2025-11-25', resourceNotFound: -32002 },
  { era: '2026-07-28', resourceNotFound: -32602 },
] as const;
type Era = (typeof ERAS)[number]['era'];

const STATELESS_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'matrix', version: '1' },
};

/** A request of `era` as it goes on the wire: 2026-07-28 ones carry `_meta` and the routing headers. */
function wireRequest(era: Era, target: Target): { headers: Record<string, string>; body: string } {
  const { method, params } = requestFor[target];
  if (era === '2025-11-25')
    return {
      headers: { 'mcp-protocol-version': era },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    };
  const name = (params.name ?? params.uri) as string | undefined;
  return {
    headers: { 'mcp-protocol-version': era, 'mcp-method': method, ...(name && { 'mcp-name': name }) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: STATELESS_META } }),
  };
}

/** A client of `era`: the SDK v1 client (2025-11-25), or the SDK v2 client pinned to 2026-07-28. */
async function connectEra(
  era: Era,
  url: string,
  headers: Record<string, string>,
): Promise<MatrixClient & { close(): Promise<void> }> {
  if (era === '2025-11-25') return connectHttpClient(url, headers);
  const client = new ClientV2({ name: 'matrix', version: '1' }, { versionNegotiation: { mode: { pin: era } } });
  await client.connect(new TransportV2(new URL(url), { requestInit: { headers } }));
  return client as unknown as MatrixClient & { close(): Promise<void> };
}

/** What a caller without the entry's scope must see: nothing, exactly as if it did not exist. */
async function expectHidden(client: MatrixClient, target: Target, resourceNotFound: number = -32002): Promise<void> {
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
      return void (await expect(client.readResource({ uri: 'desk://queue' })).rejects.toMatchObject({
        code: resourceNotFound,
      }));
    case 'list':
      return void expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('readTicket');
  }
}

async function expectAllowed(client: MatrixClient, target: Target): Promise<void> {
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
        auth: issuer.hostAuth(),
      },
      (options) => SecurityFixtureModule.register(options),
    ));
  });
  afterAll(async () => {
    await app.close();
    await issuer.close();
  });

  const refusals = credentialRefusals(() => issuer, 'tickets:read reports');

  describe.each(ERAS)('$era requests', ({ era, resourceNotFound }) => {
    describe.each(TARGETS)('%s', (target) => {
      it.each(refusals)('is refused with %s, before any code runs', async (_label, token, status, message) => {
        const reached = REACHED.length;
        const credential = await token();
        const wire = wireRequest(era, target);
        const response = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            ...wire.headers,
            ...(credential && { authorization: `Bearer ${credential}` }),
          },
          body: wire.body,
        });
        expect(response.status).toBe(status);
        expect(((await response.json()) as { error: { message: string } }).error.message).toContain(message);
        expect(REACHED.length).toBe(reached);
      });

      it('is hidden from a caller without the entry scope, before any code runs', async () => {
        const reached = REACHED.length;
        const client = await connectEra(era, url, { authorization: `Bearer ${await issuer.sign({ scope: 'mcp' })}` });
        try {
          await expectHidden(client, target, resourceNotFound);
        } finally {
          await client.close();
        }
        expect(REACHED.length).toBe(reached);
      });

      it('is served to a caller with the scopes', async () => {
        const client = await connectEra(era, url, {
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
});

describe('security matrix over stdio (the configured principal)', () => {
  async function stdioClient(
    era: Era,
    scopes: string[],
  ): Promise<{ client: MatrixClient; close: () => Promise<void> }> {
    const moduleRef = await Test.createTestingModule({
      imports: [SecurityFixtureModule.register({ http: false, stdioPrincipal: { id: 'operator', scopes } })],
    }).compile();
    await moduleRef.init();
    const toServer = new PassThrough();
    const fromServer = new PassThrough();
    void moduleRef.get(StdioTransport).connect(toServer, fromServer);
    const transport = new StreamClientTransport(fromServer, toServer);
    if (era === '2025-11-25') {
      const client = new Client({ name: 'stdio', version: '1' });
      await client.connect(transport);
      return { client, close: async () => (await client.close(), await moduleRef.close()) };
    }
    const client = new ClientV2({ name: 'stdio', version: '1' }, { versionNegotiation: { mode: { pin: era } } });
    await client.connect(transport as unknown as Parameters<ClientV2['connect']>[0]);
    return {
      client: client as unknown as MatrixClient,
      close: async () => (await client.close(), await moduleRef.close()),
    };
  }

  describe.each(ERAS)('$era requests', ({ era, resourceNotFound }) => {
    it.each(TARGETS)('%s: hidden without the scope, served with it', async (target) => {
      const reached = REACHED.length;
      const denied = await stdioClient(era, []);
      await expectHidden(denied.client, target, resourceNotFound).finally(denied.close);
      expect(REACHED.length).toBe(reached);
      const allowed = await stdioClient(era, ['tickets:read', 'reports']);
      await expectAllowed(allowed.client, target).finally(allowed.close);
    });
  });
});
