import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { connectHttpClient } from './support/fixture-app';
import { waitFor } from './support/wait-for';

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });

async function untilReady(url: string): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (
      await fetch(url).then(
        (response) => response.ok,
        () => false,
      )
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} never became ready`);
}

/**
 * A real redis-server (Debian's package, installed by npm test's first step when missing) and two support-desk processes sharing
 * it: the per-principal, per-tool limit holds across both.
 */
describe('throttling shared through Redis by two host processes', () => {
  const processes: ChildProcess[] = [];
  afterAll(() => processes.forEach((child) => child.kill('SIGTERM')));

  it('counts calls made to either host against one limit', async () => {
    const redisPort = await freePort();
    const redis = spawn(
      'redis-server',
      ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    processes.push(redis);
    await waitFor(() => redis.exitCode === null, 1_000);
    const hosts = await Promise.all(
      [0, 1].map(async () => {
        const port = await freePort();
        const child = spawn(process.execPath, [join(__dirname, '..', 'dist', 'src', 'main.js')], {
          env: {
            ...process.env,
            PORT: String(port),
            HOST: '127.0.0.1',
            REDIS_URL: `redis://127.0.0.1:${redisPort}`,
            THROTTLE_LIMIT: '3',
            THROTTLE_TTL_MS: '60000',
            AUDIT_FILE: join(tmpdir(), `redis-audit-${port}.jsonl`),
          },
          stdio: 'ignore',
        });
        processes.push(child);
        await untilReady(`http://127.0.0.1:${port}/health/ready`);
        return `http://127.0.0.1:${port}/mcp`;
      }),
    );
    const [a, b] = await Promise.all(hosts.map((url) => connectHttpClient(url)));
    try {
      const call = (client: typeof a) =>
        client.callTool({ name: 'get_customer', arguments: { customerId: 'C-1001' } }) as Promise<CallToolResult>;
      const results = [await call(a), await call(b), await call(a), await call(b)];
      expect(results.map((result) => result.isError === true)).toEqual([false, false, false, true]);
      expect((results[3].content[0] as { text: string }).text).toMatch(
        /^Rate limit reached for "get_customer": at most 3 call\(s\) per 60 s\. Retry in \d+ s\.$/,
      );
      // Another tool has its own budget.
      expect((await b.callTool({ name: 'search_customers', arguments: {} })).isError).toBeUndefined();
    } finally {
      await a.close();
      await b.close();
    }
  }, 60_000);
});
