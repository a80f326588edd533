import type { INestApplication } from '@nestjs/common';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RedisClusterBackplane } from 'nest-mcp-host/redis';
import type { McpModuleOptions } from '#libs/hosting';
import { hashApiKey } from '#libs/security';
import { ClusterFixtureModule, ReplicaLog } from './fixtures/cluster.fixtures';
import { connectHttpClient, startFixtureApp } from './support/fixture-app';
import { startRedisServer, type RedisServer } from './support/redis-server';
import { post2026 } from './support/stateless-request';

/**
 * Item 8 of issue 25: with API keys, an agent program that declares URL elicitation receives the
 * approval link; it must not be able to approve its own call with the very key it called with.
 * A person's approval is authenticated by a credential the calling program does not hold: an
 * approver's key. `allowSelfApproval: true` says the caller's key is a person's (the old behaviour).
 */
const KEYS = { agent: 'agent-key-0123456789', ops: 'ops-approver-key-0123' };
const AUTH = {
  mode: 'apiKey' as const,
  keys: [
    { hash: hashApiKey(KEYS.agent), principal: 'agent' },
    { hash: hashApiKey(KEYS.ops), principal: 'ops', roles: ['approver'] },
  ],
};
const SECRET = 'the-secret-both-replicas-share-0123456789';
const URL_ONLY = { elicitation: { url: {} } };
const SELF_REFUSED =
  '"agent" may not decide a request of its own: another approver must (approvals.allowSelfApproval is off).';

interface Host {
  app: INestApplication;
  url: string;
  base: string;
}

async function startHost(options: Partial<McpModuleOptions>): Promise<Host> {
  const { app, url } = await startFixtureApp(
    { auth: AUTH, requestState: { secret: SECRET }, approvals: { waitMs: 5_000 }, ...options },
    (host) => ClusterFixtureModule.register(host),
  );
  return { app, url, base: url.replace(/\/mcp$/, '') };
}

/** A decision through the admin API, with `key`. */
async function decide(base: string, id: string, key: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${base}/admin/api/approvals/${id}/approve`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ reason: 'looked at it' }),
  });
  return { status: response.status, body: await response.json() };
}

/** A 2026-07-28 `tools/call` of the agent, answered with JSON. */
async function call2026(url: string, params: Record<string, unknown>) {
  const response = await post2026(
    url,
    'tools/call',
    params,
    { 'x-api-key': KEYS.agent, accept: 'application/json' },
    { capabilities: URL_ONLY },
  );
  return (await response.json()) as {
    result?: CallToolResult & {
      resultType: string;
      requestState?: string;
      inputRequests?: Record<string, { params: { url: string } }>;
    };
  };
}

const PLACES = ['on one host', 'on two replicas sharing a backplane (called on r1, decided on r2)'] as const;

const idOf = (link: string) => new URL(link).hash.slice('#approval='.length);

describe.each([false, true])('URL-mode approval with API keys, allowSelfApproval: %s', (allowSelfApproval) => {
  let redis: RedisServer;
  let single: Host;
  let r1: Host;
  let r2: Host;

  beforeAll(async () => {
    redis = await startRedisServer();
    const approvals = { waitMs: 5_000, ...(allowSelfApproval && { allowSelfApproval }) };
    single = await startHost({ approvals });
    const replica = (name: string) =>
      startHost({
        approvals,
        replica: name,
        name: 'self-approval',
        cluster: { backplane: new RedisClusterBackplane(redis.url) },
      });
    r1 = await replica('r1');
    r2 = await replica('r2');
  });
  afterAll(async () => {
    for (const host of [single, r1, r2]) await host?.app.close();
    await redis?.stop();
  });

  /** Where the call is made, and where its approval is decided. */
  const hostsOf = (place: (typeof PLACES)[number]): [Host, Host] => (place === PLACES[0] ? [single, single] : [r1, r2]);
  const wiped = (host: Host) => host.app.get(ReplicaLog).wiped;

  /**
   * What the calling program does with the link it was sent: tries its own key; then, when that is
   * refused, a person signs in as the approver and approves it.
   */
  async function approveFromLink(decider: Host, link: string): Promise<number> {
    const own = await decide(decider.base, idOf(link), KEYS.agent);
    if (allowSelfApproval) {
      expect(own).toMatchObject({ status: 200, body: { approval: { status: 'approved', decidedBy: 'agent' } } });
      return own.status;
    }
    expect(own).toEqual({ status: 403, body: { error: 'forbidden', message: SELF_REFUSED } });
    const approver = await decide(decider.base, idOf(link), KEYS.ops);
    expect(approver).toMatchObject({ status: 200, body: { approval: { status: 'approved', decidedBy: 'ops' } } });
    return own.status;
  }

  it.each(PLACES)(
    '2025-11-25 stateful session %s: the waiting call runs once the right principal approved',
    async (place) => {
      const [caller, decider] = hostsOf(place);
      const archive = `v1-${caller === single}-${allowSelfApproval}`;
      const client = await connectHttpClient(caller.url, { 'x-api-key': KEYS.agent }, { capabilities: URL_ONLY });
      const statuses: number[] = [];
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        const params = request.params as { mode: string; url: string };
        expect(params.mode).toBe('url');
        expect(params.url).toMatch(new RegExp(`^${caller.base}/admin#approval=[A-Za-z0-9_-]{24}$`));
        statuses.push(await approveFromLink(decider, params.url));
        return { action: 'accept' };
      });
      try {
        expect(await client.callTool({ name: 'wipeArchive', arguments: { archive } })).toEqual({
          content: [{ type: 'text', text: `wiped ${archive}` }],
        });
        expect(statuses).toEqual([allowSelfApproval ? 200 : 403]);
        expect(wiped(caller)).toContain(archive);
      } finally {
        await client.close();
      }
    },
  );

  it.each(PLACES)('2026-07-28 %s: the retry runs once the right principal approved', async (place) => {
    const [caller, decider] = hostsOf(place);
    const archive = `v2026-${caller === single}-${allowSelfApproval}`;
    const params = { name: 'wipeArchive', arguments: { archive } };
    const asked = await call2026(caller.url, params);
    expect(asked.result?.resultType).toBe('input_required');
    const link = asked.result!.inputRequests!.confirmation.params.url;
    expect(link).toMatch(new RegExp(`^${caller.base}/admin#approval=[A-Za-z0-9_-]{24}$`));
    // Until someone may decide it, nothing runs.
    expect(wiped(caller)).not.toContain(archive);
    expect(await approveFromLink(decider, link)).toBe(allowSelfApproval ? 200 : 403);
    // The retry, on the other replica when there are two.
    const ran = await call2026(decider.url, {
      ...params,
      inputResponses: { confirmation: { action: 'accept' } },
      requestState: asked.result!.requestState,
    });
    expect(ran.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: `wiped ${archive}` }] });
    expect(ran.result?.isError).toBeUndefined();
  });
});
