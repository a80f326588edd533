import { createServer, type Server } from 'node:http';
import { Injectable, type INestApplication } from '@nestjs/common';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { McpContext, McpTool, type McpCallContext } from 'nest-mcp-host';
import { McpGateway } from '#libs/gateway';
import { McpModule } from '#libs/hosting';
import { baseUrlOf, connectHttpClient, startTestApp } from './support/fixture-app';
import { startIssuer, type TestIssuer } from './support/issuer';
import { waitFor } from './support/wait-for';

// Upstream processes start, restart and are killed here: on a busy CI machine that takes longer
// than jest's 5 s default, which is a limit for a hung test, not a timing goal.
jest.setTimeout(30_000);

const CLIENT = { id: 'desk-gateway', secret: 'gateway-secret-0123456789' };
/** The audience the issuer's tokens name, and the resource the upstream host says it is. */
const RESOURCE = 'http://127.0.0.1/mcp';

@Injectable()
class WhoAmI {
  @McpTool({ description: 'Says who is calling' })
  whoami(@McpContext() context: McpCallContext) {
    return { caller: context.caller.id, scopes: context.caller.scopes };
  }
}

/** A token endpoint for the client credentials grant: client_secret_basic, tokens from `issuer`. */
async function startTokenEndpoint(issuer: TestIssuer) {
  const asked: URLSearchParams[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const form = new URLSearchParams(body);
      asked.push(form);
      const expected = `Basic ${Buffer.from(`${CLIENT.id}:${CLIENT.secret}`).toString('base64')}`;
      const reply = (status: number, json: unknown) =>
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
      if (request.headers.authorization !== expected)
        return reply(401, { error: 'invalid_client', error_description: 'unknown client or wrong secret' });
      if (form.get('grant_type') !== 'client_credentials') return reply(400, { error: 'unsupported_grant_type' });
      void issuer
        .sign({ sub: CLIENT.id, scope: form.get('scope') ?? '' }, { audience: form.get('resource') ?? undefined })
        .then((token) => reply(200, { access_token: token, token_type: 'Bearer', expires_in: 300 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/token`,
    asked,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('the gateway authenticating to an OAuth upstream with client credentials', () => {
  let issuer: TestIssuer;
  let tokens: Awaited<ReturnType<typeof startTokenEndpoint>>;
  let upstream: INestApplication;
  let upstreamUrl: string;
  let gateway: INestApplication;
  let client: Client;

  beforeAll(async () => {
    issuer = await startIssuer();
    tokens = await startTokenEndpoint(issuer);
    upstream = await startTestApp({
      imports: [McpModule.forRoot({ name: 'wiki', version: '1.0.0', auth: issuer.hostAuth() })],
      providers: [WhoAmI],
    });
    upstreamUrl = `${await baseUrlOf(upstream)}/mcp`;

    gateway = await startTestApp({
      imports: [
        McpModule.forRoot({
          name: 'desk',
          version: '1.0.0',
          gateway: {
            upstreams: [
              {
                name: 'wiki',
                transport: {
                  type: 'http',
                  url: upstreamUrl,
                  oauth: {
                    tokenUrl: tokens.url,
                    clientId: CLIENT.id,
                    clientSecret: CLIENT.secret,
                    scope: 'mcp',
                    resource: RESOURCE,
                  },
                },
              },
            ],
          },
        }),
      ],
    });
    client = await connectHttpClient(`${await baseUrlOf(gateway)}/mcp`);
  });
  afterAll(async () => {
    await client?.close();
    await gateway?.close();
    await upstream?.close();
    await tokens?.close();
    await issuer?.close();
  });

  it('calls the upstream with a token of its own, for that upstream, asked for once', async () => {
    for (let i = 0; i < 3; i++) {
      const result = (await client.callTool({ name: 'wiki__whoami', arguments: {} })) as CallToolResult;
      expect(result.structuredContent).toEqual({ caller: CLIENT.id, scopes: ['mcp'] });
    }
    expect(tokens.asked).toHaveLength(1);
    expect(Object.fromEntries(tokens.asked[0])).toEqual({
      grant_type: 'client_credentials',
      scope: 'mcp',
      resource: RESOURCE,
    });
  });

  it('says why an upstream whose credentials are refused is not connected', async () => {
    const gatewayService = gateway.get(McpGateway);
    await gatewayService.addUpstream({
      name: 'wiki-bad',
      transport: {
        type: 'http',
        url: upstreamUrl,
        oauth: { tokenUrl: tokens.url, clientId: CLIENT.id, clientSecret: 'wrong-secret-0123456789', scope: 'mcp' },
      },
      required: false,
      reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000 },
    });
    await waitFor(() => gatewayService.status().some(({ name, lastError }) => name === 'wiki-bad' && !!lastError));
    const bad = gatewayService.status().find(({ name }) => name === 'wiki-bad')!;
    expect(bad.state).not.toBe('connected');
    expect(bad.lastError).toMatch(
      /token endpoint refused the client credentials \(401 invalid_client: unknown client or wrong secret\)/,
    );
    await gatewayService.removeUpstream('wiki-bad');
  });
});
