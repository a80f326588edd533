import { Injectable, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { SkipThrottle, Throttle, ThrottlerModule, ThrottlerStorage, ThrottlerStorageService } from '@nestjs/throttler';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { McpPrompt, McpResource, McpTool } from '#libs/core';
import { McpModule } from '#libs/hosting';
import { FixedWindowThrottlerStorage, hashApiKey, McpThrottlerGuard } from '#libs/security';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { connectHttpClient } from './support/fixture-app';

@Injectable()
class ThrottledTools {
  @McpTool({ description: 'Default limits (burst 3 per second)' })
  lookup() {
    return 'found';
  }

  @Throttle({ burst: { limit: 1, ttl: 60_000 } })
  @McpTool({ description: 'Expensive: once a minute' })
  expensive() {
    return 'computed';
  }

  @SkipThrottle({ burst: true })
  @McpTool({ description: 'Never throttled' })
  cheap() {
    return 'free';
  }

  @Throttle({ burst: { limit: 1, ttl: 60_000 } })
  @McpPrompt({ description: 'Once a minute' })
  digest() {
    return 'today in short';
  }

  @Throttle({ burst: { limit: 1, ttl: 60_000 } })
  @McpResource({ uri: 'desk://status', name: 'status', description: 'Once a minute' })
  status() {
    return 'all quiet';
  }
}

@Module({
  imports: [
    ThrottlerModule.forRoot([{ name: 'burst', ttl: 1_000, limit: 3 }]),
    McpModule.forRoot({
      name: 'throttled',
      version: '1.0.0',
      auth: {
        mode: 'apiKey',
        keys: [
          { hash: hashApiKey('key-a'), principal: 'alice' },
          { hash: hashApiKey('key-b'), principal: 'bob' },
        ],
      },
    }),
  ],
  providers: [ThrottledTools, { provide: APP_GUARD, useClass: McpThrottlerGuard }],
})
class ThrottledModule {}

const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

describe.each([
  ['its default storage', undefined],
  ['FixedWindowThrottlerStorage', () => new FixedWindowThrottlerStorage()],
])('throttling with @nestjs/throttler in the mcp context (%s)', (_label, storage) => {
  it('limits per principal and per tool, honours @Throttle and @SkipThrottle, and says when to retry', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [ThrottledModule] })
      .overrideProvider(ThrottlerStorage)
      .useValue(storage ? storage() : new ThrottlerStorageService())
      .compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    const url = `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/mcp`;
    const alice = await connectHttpClient(url, { 'x-api-key': 'key-a' });
    const bob = await connectHttpClient(url, { 'x-api-key': 'key-b' });
    try {
      const calls = await Promise.all(Array.from({ length: 4 }, () => alice.callTool({ name: 'lookup' })));
      expect(calls.filter((result) => !result.isError)).toHaveLength(3);
      const refused = calls.find((result) => result.isError)!;
      expect(textOf(refused)).toMatch(
        /^Rate limit reached for "lookup": at most 3 call\(s\) per 1 s\. Retry in \d+ s\.$/,
      );
      expect(textOf(await bob.callTool({ name: 'lookup' }))).toBe('found'); // bob has his own budget

      expect(textOf(await alice.callTool({ name: 'expensive' }))).toBe('computed');
      const expensive = await alice.callTool({ name: 'expensive' });
      expect(textOf(expensive)).toMatch(
        /^Rate limit reached for "expensive": at most 1 call\(s\) per 60 s\. Retry in (5\d|60) s\.$/,
      );
      // The retry time is machine-readable too, the same number the message gives.
      const seconds = Number(/Retry in (\d+) s/.exec(textOf(expensive))![1]);
      expect(expensive._meta).toEqual({ 'nest-mcp-host/retryAfterSeconds': seconds });
      for (let i = 0; i < 6; i++) expect(textOf(await alice.callTool({ name: 'cheap' }))).toBe('free');
    } finally {
      await alice.close();
      await bob.close();
      await app.close();
    }
  });
});

describe('throttling prompts and resources', () => {
  it('refuses the call over the limit with the throttling error and its retry time, not an internal error', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [ThrottledModule] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    const url = `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/mcp`;
    const alice = await connectHttpClient(url, { 'x-api-key': 'key-a' });
    try {
      expect((await alice.getPrompt({ name: 'digest' })).messages).toHaveLength(1);
      const prompt = await alice.getPrompt({ name: 'digest' }).then(
        () => undefined,
        (error: { code: number; message: string; data?: { retryAfterSeconds?: number } }) => error,
      );
      expect(prompt).toMatchObject({
        code: -32029,
        message: expect.stringMatching(
          /Rate limit reached for "digest": at most 1 call\(s\) per 60 s\. Retry in \d+ s\.$/,
        ),
      });
      const seconds = Number(/Retry in (\d+) s/.exec(prompt!.message)![1]);
      expect(prompt!.data).toEqual({ retryAfterSeconds: seconds });

      expect((await alice.readResource({ uri: 'desk://status' })).contents).toHaveLength(1);
      await expect(alice.readResource({ uri: 'desk://status' })).rejects.toMatchObject({
        code: -32029,
        message: expect.stringMatching(/Rate limit reached for "desk:\/\/status"/),
      });
    } finally {
      await alice.close();
      await app.close();
    }
  });
});

describe('throttling across protocol eras', () => {
  it('gives a principal one budget, whichever revision its requests speak', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [ThrottledModule] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    const url = `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/mcp`;
    const legacy = await connectHttpClient(url, { 'x-api-key': 'key-a' });
    const stateless = new ClientV2(
      { name: 'v2', version: '1' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await stateless.connect(new TransportV2(new URL(url), { requestInit: { headers: { 'x-api-key': 'key-a' } } }));
    try {
      expect(textOf(await stateless.callTool({ name: 'expensive', arguments: {} }))).toBe('computed');
      const refused = await legacy.callTool({ name: 'expensive' });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/^Rate limit reached for "expensive": at most 1 call\(s\) per 60 s\./);
      const again = (await stateless.callTool({ name: 'expensive', arguments: {} })) as CallToolResult;
      expect(again.isError).toBe(true);
      expect(textOf(again)).toMatch(/^Rate limit reached for "expensive"/);
    } finally {
      await legacy.close();
      await stateless.close();
      await app.close();
    }
  });
});
