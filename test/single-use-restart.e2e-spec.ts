import type { INestApplication } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { RedisClusterBackplane } from 'nest-mcp-host/redis';
import type { McpModuleOptions } from '#libs/hosting';
import { ClusterFixtureModule, ReplicaLog } from './fixtures/cluster.fixtures';
import { startFixtureApp } from './support/fixture-app';
import { startRedisServer, type RedisServer } from './support/redis-server';
import { post2026 } from './support/stateless-request';
import { waitForAsync } from './support/wait-for';

/**
 * Item 11 of issue 25: a confirmed 2026-07-28 retry is used once, also after the host restarts
 * or its shared store comes back empty, for as long as its sealed state is valid (the secret is
 * fixed, so the state outlives the process); while the store that keeps it single-use cannot be
 * reached, confirmed retries and approvals are refused with "retry shortly".
 */
const SECRET = 'the-fixed-request-state-secret-0123456789';
const FORMS = { elicitation: {} };

interface Answer {
  result?: CallToolResult & { resultType: string; requestState?: string; inputRequests?: Record<string, unknown> };
  error?: { code: number; message: string };
}

async function call(
  url: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = FORMS,
): Promise<Answer> {
  const response = await post2026(url, 'tools/call', params, { accept: 'application/json' }, { capabilities });
  return (await response.json()) as Answer;
}

/** Asks to wipe `archive`, and the retry that confirms it (not sent yet). */
async function confirmedRetry(url: string, archive: string): Promise<Record<string, unknown>> {
  const params = { name: 'wipeArchive', arguments: { archive } };
  const asked = await call(url, params);
  expect(asked).toMatchObject({ result: { resultType: 'input_required' } });
  return {
    ...params,
    inputResponses: { confirmation: { action: 'accept', content: { confirm: true } } },
    requestState: asked.result!.requestState,
  };
}

const ran = (answer: Answer, archive: string) =>
  expect(answer.result).toMatchObject({
    resultType: 'complete',
    content: [{ type: 'text', text: `wiped ${archive}` }],
  });
const askedAgain = (answer: Answer) =>
  expect(answer).toMatchObject({
    result: {
      resultType: 'input_required',
      inputRequests: { confirmation: expect.any(Object) },
    },
  });

async function startHost(options: Partial<McpModuleOptions> = {}): Promise<{ app: INestApplication; url: string }> {
  return startFixtureApp({ requestState: { secret: SECRET }, ...options }, (host) =>
    ClusterFixtureModule.register(host),
  );
}

describe('a confirmed 2026-07-28 retry after the host restarts (claims in process memory)', () => {
  it('is asked again on the restarted host, not run a second time', async () => {
    const first = await startHost();
    const retry = await confirmedRetry(first.url, 'q1');
    ran(await call(first.url, retry), 'q1');
    askedAgain(await call(first.url, retry));
    await first.app.close();

    const restarted = await startHost();
    try {
      askedAgain(await call(restarted.url, retry));
      expect(restarted.app.get(ReplicaLog).wiped).toEqual([]);
      // A retry of the new process confirms as before, once.
      const fresh = await confirmedRetry(restarted.url, 'q2');
      ran(await call(restarted.url, fresh), 'q2');
      askedAgain(await call(restarted.url, fresh));
    } finally {
      await restarted.app.close();
    }
  });
});

describe('a confirmed 2026-07-28 retry with claims on a Redis backplane', () => {
  let redis: RedisServer;
  let host: { app: INestApplication; url: string };
  const startReplica = () =>
    startHost({ name: 'single-use', cluster: { backplane: new RedisClusterBackplane(redis.url) } });

  beforeAll(async () => {
    redis = await startRedisServer();
    host = await startReplica();
  });
  afterAll(async () => {
    await host?.app.close();
    await redis?.stop();
  });

  /** The answer once the host reaches Redis again (meanwhile it refuses, saying to retry shortly). */
  async function callOnceReachable(params: Record<string, unknown>): Promise<Answer> {
    let answer: Answer = {};
    await waitForAsync(async () => {
      answer = await call(host.url, params);
      return !JSON.stringify(answer).includes('retry shortly');
    }, 15_000);
    return answer;
  }

  it('is asked again after the host restarts: the claims outlive it in Redis', async () => {
    const retry = await confirmedRetry(host.url, 'r1');
    ran(await call(host.url, retry), 'r1');
    await host.app.close();
    host = await startReplica();
    askedAgain(await call(host.url, retry));
    expect(host.app.get(ReplicaLog).wiped).toEqual([]);
  });

  it('is asked again after Redis comes back empty (restarted without persistence)', async () => {
    const retry = await confirmedRetry(host.url, 'r2');
    ran(await call(host.url, retry), 'r2');
    await redis.stop();
    await redis.start();
    askedAgain(await callOnceReachable(retry));
    expect(host.app.get(ReplicaLog).wiped).toEqual(['r2']);
    // And after FLUSHALL, the same.
    const flushed = await confirmedRetry(host.url, 'r3');
    ran(await call(host.url, flushed), 'r3');
    const probe = new RedisClusterBackplane(redis.url);
    await probe.subscribe(() => undefined);
    await (probe as unknown as { redis: { flushall(): Promise<unknown> } }).redis.flushall();
    await probe.close();
    askedAgain(await call(host.url, flushed));
    expect(host.app.get(ReplicaLog).wiped).toEqual(['r2', 'r3']);
  });

  it('refuses confirmed retries and approvals with "retry shortly" while Redis cannot be reached', async () => {
    const retry = await confirmedRetry(host.url, 'r4');
    const approvalCall = { name: 'wipeArchive', arguments: { archive: 'r5' } };
    await redis.stop();
    try {
      const unavailable = {
        code: -32603,
        message: "The shared state of the host's replicas (approval requests) cannot be reached; retry shortly.",
      };
      expect(await call(host.url, retry)).toMatchObject({ error: unavailable });
      // A client without forms: its call would wait for an approver, in the store that cannot be reached.
      expect(await call(host.url, approvalCall, {})).toMatchObject({ error: unavailable });
      // And approvers are told the same, not that the host failed.
      const listed = await fetch(host.url.replace(/\/mcp$/, '/admin/api/approvals/some-request'));
      expect(listed.status).toBe(503);
      expect(listed.headers.get('retry-after')).toBe('1');
      expect(await listed.json()).toEqual({ error: 'unavailable', message: unavailable.message });
    } finally {
      await redis.start();
    }
    // Redis came back empty: the state from before is asked again, and its new round, confirmed, runs.
    const again = await callOnceReachable(retry);
    askedAgain(again);
    ran(await call(host.url, { ...retry, requestState: again.result!.requestState }), 'r4');
    expect(host.app.get(ReplicaLog).wiped).toEqual(['r2', 'r3', 'r4']);
  });
});
