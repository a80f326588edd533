import { Injectable, Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { McpModule, McpResource, McpTool, RequireScopes, type McpModuleOptions } from 'nest-mcp-host';
import { startDeskHost } from './support/desk-host';
import { rpc2026 } from './support/stateless-request';

@Injectable()
class CatalogTools {
  @McpTool({ name: 'country_code', description: 'Looks up a country code', cache: { ttlMs: 5_000, scope: 'public' } })
  countryCode() {
    return 'CH';
  }

  @McpTool({ name: 'weather', description: 'Current weather' })
  weather() {
    return 'sunny';
  }
}

@Injectable()
class Documents {
  @McpResource({ uri: 'docs://terms', name: 'terms', cache: { ttlMs: 600_000, scope: 'public' } })
  terms() {
    return 'Terms of service';
  }

  @RequireScopes('kb:read')
  @McpResource({ uri: 'docs://playbook', name: 'playbook', cache: { ttlMs: 60_000, scope: 'public' } })
  playbook() {
    return 'Internal playbook';
  }
}

/** A host whose every caller is `kb-reader` (authentication off), with the given options. */
function hostModule(options: Partial<McpModuleOptions>) {
  @Module({
    imports: [
      McpModule.forRoot({
        name: 'cache-hints',
        version: '1.0.0',
        mode: 'stateless',
        auth: { mode: 'none', principal: { id: 'kb-reader', scopes: ['kb:read'] } },
        ...options,
      }),
    ],
    providers: [CatalogTools, Documents],
  })
  class CacheHintsHost {}
  return CacheHintsHost;
}

async function start(options: Partial<McpModuleOptions>): Promise<{ app: INestApplication; url: string }> {
  const moduleRef = await Test.createTestingModule({ imports: [hostModule(options)] }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await app.listen(0, '127.0.0.1');
  return { app, url: `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/mcp` };
}

/** A 2025-11-25 request (stateless mode: no initialize needed), as JSON. */
async function rpc2025(url: string, method: string, params: Record<string, unknown> = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await response.json()) as { result: Record<string, unknown> }).result;
}

const hintsOf = (result: Record<string, unknown> | undefined) => ({
  resultType: result?.resultType,
  ttlMs: result?.ttlMs,
  cacheScope: result?.cacheScope,
});

describe('caching hints of 2026-07-28 results', () => {
  describe('with a module default', () => {
    let app: INestApplication;
    let url: string;

    beforeAll(async () => ({ app, url } = await start({ cache: { ttlMs: 60_000, scope: 'public' } })));
    afterAll(() => app.close());

    it('gives a list open to everyone the shortest ttl of its entries, public', async () => {
      const { body } = await rpc2026(url, 'tools/list');
      expect(hintsOf(body.result)).toEqual({ resultType: 'complete', ttlMs: 5_000, cacheScope: 'public' });
      // Lists with no entries take the module's default.
      expect(hintsOf((await rpc2026(url, 'prompts/list')).body.result)).toEqual({
        resultType: 'complete',
        ttlMs: 60_000,
        cacheScope: 'public',
      });
    });

    it('keeps private a list holding an entry some callers may not see, even for one who sees it all', async () => {
      const { body } = await rpc2026(url, 'resources/list');
      expect((body.result!.resources as unknown[]).length).toBe(2);
      expect(hintsOf(body.result)).toEqual({ resultType: 'complete', ttlMs: 60_000, cacheScope: 'private' });
    });

    it("gives a read its resource's hints, private for a restricted resource", async () => {
      expect(hintsOf((await rpc2026(url, 'resources/read', { uri: 'docs://terms' })).body.result)).toEqual({
        resultType: 'complete',
        ttlMs: 600_000,
        cacheScope: 'public',
      });
      expect(hintsOf((await rpc2026(url, 'resources/read', { uri: 'docs://playbook' })).body.result)).toEqual({
        resultType: 'complete',
        ttlMs: 60_000,
        cacheScope: 'private',
      });
    });

    it('changes nothing for 2025-era clients', async () => {
      for (const [method, params] of [
        ['tools/list', {}],
        ['resources/list', {}],
        ['resources/read', { uri: 'docs://terms' }],
      ] as const) {
        const result = await rpc2025(url, method, params);
        expect(Object.keys(result).filter((key) => ['ttlMs', 'cacheScope', 'resultType'].includes(key))).toEqual([]);
      }
    });
  });

  describe('without a module default', () => {
    it('marks a list stale and private as soon as one entry has no hints of its own', async () => {
      const { app, url } = await start({});
      try {
        expect(hintsOf((await rpc2026(url, 'tools/list')).body.result)).toEqual({
          resultType: 'complete',
          ttlMs: 0,
          cacheScope: 'private',
        });
        expect(hintsOf((await rpc2026(url, 'resources/read', { uri: 'docs://terms' })).body.result)).toEqual({
          resultType: 'complete',
          ttlMs: 600_000,
          cacheScope: 'public',
        });
      } finally {
        await app.close();
      }
    });
  });

  it('refuses to start with caching hints a client could not use', async () => {
    const failed = await Test.createTestingModule({ imports: [hostModule({ cache: { ttlMs: -1 } })] })
      .compile()
      .then(
        () => undefined,
        (error: unknown) => error as Error,
      );
    expect(failed?.message).toContain('McpModule option "cache": ttlMs must be an integer ≥ 0 (milliseconds), got -1');
  });

  it('on the support desk: knowledge-base reads kept five minutes, privately; lists not cached', async () => {
    const { app, url } = await startDeskHost();
    try {
      expect(hintsOf((await rpc2026(url, 'resources/read', { uri: 'kb://articles/refunds' })).body.result)).toEqual({
        resultType: 'complete',
        ttlMs: 300_000,
        cacheScope: 'private',
      });
      expect(hintsOf((await rpc2026(url, 'tools/list')).body.result)).toEqual({
        resultType: 'complete',
        ttlMs: 0,
        cacheScope: 'private',
      });
    } finally {
      await app.close();
    }
  });
});
