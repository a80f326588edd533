import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { startDeskHost } from './support/desk-host';
import { PLATFORMS } from './support/fixture-app';
import { freePort } from './support/free-port';

type Health = {
  status: string;
  info?: Record<string, { status: string }>;
  error?: Record<string, { status: string; error?: string }>;
};

async function startRedis(port: number): Promise<ChildProcess> {
  const redis = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  for (let attempt = 0; attempt < 100; attempt++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.end(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (up) return redis;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('redis-server did not start');
}

/**
 * The support desk with a real Redis: readiness answers 503 (naming Redis) while Redis is down and
 * 200 again once it is back, while liveness stays 200 throughout.
 */
describe.each(PLATFORMS)('readiness follows the required dependencies; liveness does not (%s)', (platform) => {
  let app: INestApplication;
  let base: string;
  let redis: ChildProcess;
  let redisPort: number;

  beforeAll(async () => {
    redisPort = await freePort();
    redis = await startRedis(redisPort);
    ({ app, base } = await startDeskHost({ REDIS_URL: `redis://127.0.0.1:${redisPort}` }, platform));
  });
  afterAll(async () => {
    await app?.close();
    redis?.kill('SIGKILL');
  });

  const probe = async (path: string) => {
    const response = await fetch(`${base}${path}`);
    return { status: response.status, body: (await response.json()) as Health };
  };

  it('is ready with Redis and the audit trail up', async () => {
    const ready = await probe('/health/ready');
    expect(ready.status).toBe(200);
    expect(ready.body.info).toMatchObject({
      mcp: { status: 'up' },
      redis: { status: 'up' },
      'audit:jsonl': { status: 'up' },
    });
  });

  it('answers 503 naming Redis while it is down, keeps liveness at 200, and recovers', async () => {
    redis.kill('SIGKILL');
    await new Promise((resolve) => redis.once('exit', resolve));
    const down = await probe('/health/ready');
    expect(down.status).toBe(503);
    // Terminus's whole result, as the 200 carries it.
    expect(down.body).toEqual({
      status: 'error',
      info: expect.objectContaining({ mcp: expect.objectContaining({ status: 'up' }) }),
      // Redis as a dependency of the desk, and as the backplane its replicas share.
      error: {
        redis: expect.objectContaining({ status: 'down', required: true }),
        cluster: expect.objectContaining({ status: 'down', required: true }),
      },
      details: expect.objectContaining({ redis: expect.objectContaining({ status: 'down' }) }),
    });
    expect((await probe('/health/live')).status).toBe(200);

    redis = await startRedis(redisPort);
    let again = await probe('/health/ready');
    for (let attempt = 0; attempt < 50 && again.status !== 200; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      again = await probe('/health/ready');
    }
    expect(again.status).toBe(200);
  }, 30_000);
});
