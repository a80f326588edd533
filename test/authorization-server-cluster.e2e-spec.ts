import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Injectable, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpCaller, McpModule, McpTool, type McpPrincipal } from 'nest-mcp-host';
import { RedisClusterBackplane } from 'nest-mcp-host/redis';
import { McpAuthorizationServer } from '#libs/authorization-server';
import { TrustedIdp } from './matrix/trusted-idp';
import { freePort } from './support/free-port';
import { startRedisServer, type RedisServer } from './support/redis-server';
import { waitForAsync } from './support/wait-for';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

@Injectable()
class WhoAmI {
  @McpTool({ description: 'Says who calls' })
  whoami(@McpCaller() caller: McpPrincipal) {
    return { caller: caller.id };
  }
}

/**
 * The authorization server facade on two replicas that share a real redis-server (the cluster
 * backplane): a client registered at one is known at the other, a token one signs the other
 * verifies (one key ring), an ID-JAG redeemed at one is refused at the other (its `jti`), a key
 * rotated at one signs on both.
 */
describe('the authorization server on two replicas (cluster backplane, redis-server)', () => {
  let redis: RedisServer;
  const idp = new TrustedIdp();
  const replicas: INestApplication[] = [];
  const bases: string[] = [];
  let issuer: string;

  /** Starts the replica at `at` in `replicas` on `port`, on the shared redis-server. */
  async function startReplica(at: number, port: number): Promise<void> {
    const moduleRef = await Test.createTestingModule({
      imports: [
        McpModule.forRoot({
          name: 'desk',
          version: '1.0.0',
          replica: `r${at + 1}`,
          cluster: { backplane: new RedisClusterBackplane(redis.url) },
          audit: { file: join(mkdtempSync(join(tmpdir(), 'as-cluster-')), 'audit.jsonl'), flushIntervalMs: 10 },
          auth: {
            mode: 'oauth',
            resource: `${issuer}/mcp`,
            claims: { scopes: { from: ['scope'] }, roles: { from: ['roles'] } },
          },
          authorizationServer: {
            idp: { issuer: idp.issuer, clientId: 'desk', clientSecret: 'desk-secret' },
            trustedIdps: [{ issuer: idp.issuer, jwksUri: idp.jwksUri }],
          },
        }),
      ],
      providers: [WhoAmI],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.listen(port, '127.0.0.1');
    replicas[at] = app;
    bases[at] = `http://127.0.0.1:${port}`;
  }

  beforeAll(async () => {
    [redis] = await Promise.all([startRedisServer(), idp.start()]);
    // Both replicas behind one public URL (a load balancer's): the issuer and resource are the same.
    issuer = 'http://127.0.0.1:1';
    for (const at of [0, 1]) await startReplica(at, await freePort());
  }, 60_000);

  afterAll(async () => {
    for (const app of replicas) await app.close();
    await Promise.all([redis?.stop(), idp.stop()]);
  });

  /** Registers a client at replica `at` (RFC 7591). */
  const register = async (at: number) =>
    (await (
      await fetch(`${bases[at]}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'agent', redirect_uris: ['http://127.0.0.1:1/callback'] }),
      })
    ).json()) as { client_id: string; client_secret: string };

  /** Redeems `assertion` at replica `at` for `client`. */
  const redeem = (at: number, client: { client_id: string; client_secret: string }, assertion: string) =>
    fetch(`${bases[at]}/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: JWT_BEARER, assertion }),
    });

  const jag = (client: string, sub = 'alice') =>
    idp.assertion({
      sub,
      audience: issuer,
      resource: `${issuer}/mcp`,
      clientId: client,
      scope: 'tickets:read',
      roles: [],
    });

  const whoami = async (at: number, token: string) => {
    const client = new Client({ name: 'e2e', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${bases[at]}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      return JSON.parse((result.content as { text: string }[])[0].text) as { caller: string };
    } finally {
      await client.close();
    }
  };

  it('knows at one replica a client registered at the other, and verifies there the tokens the other signed', async () => {
    const client = await register(0);
    const answer = await redeem(1, client, await jag(client.client_id));
    expect(answer.status).toBe(200);
    const { access_token: token } = (await answer.json()) as { access_token: string };
    expect(await whoami(0, token)).toEqual({ caller: 'alice' });
    expect(await whoami(1, token)).toEqual({ caller: 'alice' });
  });

  it('refuses at one replica an ID-JAG already redeemed at the other (jti replay)', async () => {
    const client = await register(1);
    const assertion = await jag(client.client_id, 'bob');
    expect((await redeem(0, client, assertion)).status).toBe(200);
    const replay = await redeem(1, client, assertion);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toEqual({
      error: 'invalid_grant',
      error_description: 'the assertion was already used (jti replay)',
    });
  });

  it('keeps a registered client and its sign-in when a replica restarts: the restarted one knows both', async () => {
    const client = await register(0);
    const answer = await redeem(0, client, await jag(client.client_id, 'carol'));
    const { access_token: token } = (await answer.json()) as { access_token: string };
    await replicas[0].close();
    await startReplica(0, Number(new URL(bases[0]).port));
    expect(await whoami(0, token)).toEqual({ caller: 'carol' });
    expect((await redeem(0, client, await jag(client.client_id, 'carol'))).status).toBe(200);
  });

  it('publishes a key rotated at one replica on the other before it signs, and keeps the tokens signed before', async () => {
    const client = await register(0);
    const token = async () =>
      ((await (await redeem(0, client, await jag(client.client_id))).json()) as { access_token: string }).access_token;
    const kidOf = (jwt: string) =>
      (JSON.parse(Buffer.from(jwt.split('.')[0], 'base64url').toString()) as { kid: string }).kid;
    const before = await token();
    const { kid } = await replicas[0].get(McpAuthorizationServer).keys.rotate();
    // Not signing yet: the other replica may not know it.
    expect(kidOf(await token())).toBe(kidOf(before));
    // The other replica reads the ring within its refresh, and publishes the key too.
    await waitForAsync(async () => {
      const jwks = (await (await fetch(`${bases[1]}/oauth/jwks`)).json()) as { keys: { kid: string }[] };
      return jwks.keys.some((key) => key.kid === kid);
    }, 15_000);
    expect(await whoami(1, before)).toEqual({ caller: 'alice' });
  });
});
