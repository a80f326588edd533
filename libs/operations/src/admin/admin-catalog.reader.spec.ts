import type { ModuleRef } from '@nestjs/core';
import { SkipThrottle, Throttle } from '@nestjs/throttler';
import { PromptRegistry, ResourceRegistry, ToolRegistry, type RegisteredTool } from '#libs/catalog';
import { resolveProtocolOptions } from '#libs/protocol';
import { AdminCatalogReader } from './admin-catalog.reader';

@Throttle({ burst: { limit: 2, ttl: 1_000 } })
class ThrottledTools {
  plain() {}

  @Throttle({ burst: { limit: 1, ttl: 5_000, blockDuration: 30_000 } })
  strict() {}

  @SkipThrottle({ sustained: true })
  unlimited() {}
}

function tool(methodName: keyof ThrottledTools, options: Partial<RegisteredTool['options']> = {}): RegisteredTool {
  const name = String(methodName);
  return {
    key: name,
    name,
    where: `ThrottledTools.${name}`,
    hostClass: ThrottledTools,
    methodName: name,
    instance: new ThrottledTools(),
    argsBindings: [],
    access: { scopes: ['ops'], roles: [] },
    definition: { name, inputSchema: { type: 'object' }, annotations: { destructiveHint: name === 'strict' } },
    options: { description: name, ...options },
    input: undefined,
    output: undefined,
  } as RegisteredTool;
}

function reader(throttlerOptions: unknown, confirmDestructive = false): AdminCatalogReader {
  const tools = new ToolRegistry();
  tools.register([
    tool('plain', { timeoutMs: 1_000, maxConcurrency: 3, task: 'optional' }),
    tool('strict'),
    tool('unlimited', { confirm: true }),
  ]);
  const moduleRef = {
    get: () => {
      if (throttlerOptions === undefined) throw new Error('no ThrottlerModule');
      return throttlerOptions;
    },
  } as unknown as ModuleRef;
  return new AdminCatalogReader(
    resolveProtocolOptions({ name: 'a', version: '1', confirmDestructive }, (option, problem) => {
      throw new Error(`${option} ${problem}`);
    }),
    tools,
    new PromptRegistry(),
    new ResourceRegistry(),
    moduleRef,
  );
}

describe('AdminCatalogReader', () => {
  it('reads throttling as the guard applies it: method over class over module, skips, dynamic values', () => {
    const catalog = reader({
      throttlers: [
        { name: 'burst', limit: 10, ttl: 1_000 },
        { name: 'sustained', limit: () => 100, ttl: 60_000 },
      ],
    }).read();
    expect(catalog.throttlers).toEqual([
      { name: 'burst', limit: 10, ttlMs: 1_000 },
      { name: 'sustained', limit: null, ttlMs: 60_000 },
    ]);
    const throttle = Object.fromEntries(catalog.tools.map((t) => [t.name, t.throttle]));
    expect(throttle.plain).toEqual([
      { throttler: 'burst', limit: 2, ttlMs: 1_000, blockDurationMs: 1_000, skipped: false, source: 'class' },
      { throttler: 'sustained', limit: null, ttlMs: 60_000, blockDurationMs: 60_000, skipped: false, source: 'module' },
    ]);
    expect(throttle.strict![0]).toEqual({
      throttler: 'burst',
      limit: 1,
      ttlMs: 5_000,
      blockDurationMs: 30_000,
      skipped: false,
      source: 'method',
    });
    expect(throttle.unlimited![1]).toMatchObject({ throttler: 'sustained', skipped: true });
  });

  it('names an unnamed throttler "default" and says null without a ThrottlerModule', () => {
    expect(reader([{ limit: 5, ttl: 1_000 }]).read().throttlers).toEqual([{ name: 'default', limit: 5, ttlMs: 1_000 }]);
    const none = reader(undefined).read();
    expect(none.throttlers).toBeNull();
    expect(none.tools[0].throttle).toBeNull();
  });

  it('gives each tool its limits, task support and whether calls are confirmed', () => {
    const tools = Object.fromEntries(
      reader(undefined, true)
        .read()
        .tools.map((t) => [t.name, t]),
    );
    expect(tools.plain).toMatchObject({
      where: 'ThrottledTools.plain',
      access: { scopes: ['ops'], roles: [] },
      timeoutMs: 1_000,
      maxConcurrency: 3,
      task: 'optional',
      confirm: false,
    });
    expect(tools.strict).toMatchObject({ timeoutMs: 30_000, maxConcurrency: null, task: null, confirm: true }); // destructive + confirmDestructive
    expect(tools.unlimited).toMatchObject({ confirm: true });
  });
});
