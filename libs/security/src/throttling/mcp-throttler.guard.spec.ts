import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host.js';
import { SkipThrottle, Throttle, ThrottlerException, type ThrottlerOptions } from '@nestjs/throttler';
import type { McpCallContext, McpCallKind } from '#libs/core';
import { FixedWindowThrottlerStorage } from './fixed-window.storage';
import { McpThrottledException, McpThrottlerGuard } from './mcp-throttler.guard';

class DeskTools {
  lookup() {}
  close() {}

  @Throttle({ default: { limit: 1, ttl: 10_000 } })
  export() {}

  @SkipThrottle()
  health() {}
}

/** What the guard reads of a call: who makes it, from where, and which entry it calls. */
interface Call {
  caller?: string;
  remoteAddress?: string;
  transport?: 'http' | 'stdio';
  kind?: McpCallKind;
  target?: keyof DeskTools;
}

/** The execution context HandlerRunner gives guards: type 'mcp', arguments `[args, callContext]`. */
function mcpContext({
  caller = 'alice',
  remoteAddress,
  transport = 'http',
  kind = 'tool',
  target = 'lookup',
}: Call = {}): ExecutionContext {
  const call = {
    caller: { id: caller, scopes: [], roles: [], claims: {} },
    remoteAddress,
    transport,
    kind,
    target,
    headers: { 'user-agent': 'desk-client/1.0' },
  } as unknown as McpCallContext;
  const host = new ExecutionContextHost([{}, call], DeskTools, DeskTools.prototype[target]);
  host.setType('mcp');
  return host;
}

/** An HTTP route's execution context with its request and a response that records headers. */
function httpContext(ip: string) {
  const headers: Record<string, unknown> = {};
  const res = { header: (name: string, value: unknown) => (headers[name] = value) };
  const host = new ExecutionContextHost(
    [{ ip, headers: {} }, res, () => undefined],
    DeskTools,
    DeskTools.prototype.lookup,
  );
  host.setType('http');
  return { context: host as ExecutionContext, headers };
}

const T0 = 1_700_000_000_000;

describe('McpThrottlerGuard', () => {
  let storage: FixedWindowThrottlerStorage;
  let keys: string[];

  async function guardWith(throttlers: ThrottlerOptions[]): Promise<McpThrottlerGuard> {
    const guard = new McpThrottlerGuard({ throttlers }, storage, new Reflector());
    await guard.onModuleInit();
    return guard;
  }

  /** The guard's answer: `true`, or the exception it refused with. */
  const verdict = (guard: McpThrottlerGuard, context: ExecutionContext) =>
    guard.canActivate(context).catch((error: unknown) => error);

  beforeEach(() => {
    jest.useFakeTimers({ now: T0, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    storage = new FixedWindowThrottlerStorage();
    keys = [];
    const increment = storage.increment.bind(storage);
    jest.spyOn(storage, 'increment').mockImplementation((key, ...rest) => (keys.push(key), increment(key, ...rest)));
  });

  afterEach(() => {
    storage.onModuleDestroy();
    jest.useRealTimers();
  });

  it('lets calls through up to the limit, then refuses with when to retry', async () => {
    const guard = await guardWith([{ ttl: 60_000, limit: 2 }]);
    expect(await verdict(guard, mcpContext())).toBe(true);
    expect(await verdict(guard, mcpContext())).toBe(true);
    jest.setSystemTime(T0 + 15_000);
    const refused = await verdict(guard, mcpContext());
    expect(refused).toBeInstanceOf(McpThrottledException);
    expect(refused).toBeInstanceOf(ThrottlerException);
    expect((refused as McpThrottledException).getStatus()).toBe(429);
    expect((refused as McpThrottledException).message).toBe(
      'Rate limit reached for "lookup": at most 2 call(s) per 60 s. Retry in 60 s.',
    );
    expect((refused as McpThrottledException).retryAfterSeconds).toBe(60);
  });

  it('lets calls through again once the window has passed', async () => {
    const guard = await guardWith([{ ttl: 60_000, limit: 1 }]);
    expect(await verdict(guard, mcpContext())).toBe(true);
    expect(await verdict(guard, mcpContext())).toBeInstanceOf(McpThrottledException);
    jest.setSystemTime(T0 + 59_000);
    expect(await verdict(guard, mcpContext())).toBeInstanceOf(McpThrottledException);
    jest.setSystemTime(T0 + 60_001);
    expect(await verdict(guard, mcpContext())).toBe(true);
  });

  it('counts per principal and per entry: one caller at its limit holds back no one else and no other tool', async () => {
    const guard = await guardWith([{ ttl: 60_000, limit: 1 }]);
    expect(await verdict(guard, mcpContext({ caller: 'alice', target: 'lookup' }))).toBe(true);
    expect(await verdict(guard, mcpContext({ caller: 'alice', target: 'lookup' }))).toBeInstanceOf(
      McpThrottledException,
    );
    expect(await verdict(guard, mcpContext({ caller: 'bob', target: 'lookup' }))).toBe(true);
    expect(await verdict(guard, mcpContext({ caller: 'alice', target: 'close' }))).toBe(true);
    // A prompt of the same name is another entry.
    expect(await verdict(guard, mcpContext({ caller: 'alice', target: 'lookup', kind: 'prompt' }))).toBe(true);
    // The same principal from another address is still the same principal.
    expect(
      await verdict(guard, mcpContext({ caller: 'alice', target: 'lookup', remoteAddress: '10.0.0.9' })),
    ).toBeInstanceOf(McpThrottledException);
    expect(keys).toEqual([
      'mcp:tool:lookup:default:principal:alice',
      'mcp:tool:lookup:default:principal:alice',
      'mcp:tool:lookup:default:principal:bob',
      'mcp:tool:close:default:principal:alice',
      'mcp:prompt:lookup:default:principal:alice',
      'mcp:tool:lookup:default:principal:alice',
    ]);
  });

  it('counts anonymous callers by client address (by transport on stdio, which has none)', async () => {
    const guard = await guardWith([{ ttl: 60_000, limit: 1 }]);
    expect(await verdict(guard, mcpContext({ caller: 'anonymous', remoteAddress: '10.0.0.1' }))).toBe(true);
    expect(await verdict(guard, mcpContext({ caller: 'anonymous', remoteAddress: '10.0.0.1' }))).toBeInstanceOf(
      McpThrottledException,
    );
    expect(await verdict(guard, mcpContext({ caller: 'anonymous', remoteAddress: '10.0.0.2' }))).toBe(true);
    expect(await verdict(guard, mcpContext({ caller: 'anonymous', transport: 'stdio' }))).toBe(true);
    expect(keys).toEqual([
      'mcp:tool:lookup:default:address:10.0.0.1',
      'mcp:tool:lookup:default:address:10.0.0.1',
      'mcp:tool:lookup:default:address:10.0.0.2',
      'mcp:tool:lookup:default:address:stdio',
    ]);
  });

  it('applies every named throttler, and names the one that refused', async () => {
    const guard = await guardWith([
      { name: 'burst', ttl: 1_000, limit: 2 },
      { name: 'sustained', ttl: 60_000, limit: 3 },
    ]);
    expect(await verdict(guard, mcpContext())).toBe(true);
    expect(await verdict(guard, mcpContext())).toBe(true);
    expect(await verdict(guard, mcpContext())).toMatchObject({
      message: 'Rate limit reached for "lookup": at most 2 call(s) per 1 s. Retry in 1 s.',
      retryAfterSeconds: 1,
    });
    jest.setSystemTime(T0 + 1_500);
    // The burst window is over; the call refused by it was not counted by the sustained one (3rd of 3).
    expect(await verdict(guard, mcpContext())).toBe(true);
    // Over its limit, a caller is blocked for blockDuration (the ttl by default) from that moment.
    const refused = await verdict(guard, mcpContext());
    expect(refused).toMatchObject({
      message: 'Rate limit reached for "lookup": at most 3 call(s) per 60 s. Retry in 60 s.',
      retryAfterSeconds: 60,
    });
    expect(new Set(keys)).toEqual(
      new Set(['mcp:tool:lookup:burst:principal:alice', 'mcp:tool:lookup:sustained:principal:alice']),
    );
  });

  it('honours @Throttle and @SkipThrottle on the method', async () => {
    const guard = await guardWith([{ ttl: 60_000, limit: 100 }]);
    expect(await verdict(guard, mcpContext({ target: 'export' }))).toBe(true);
    expect(await verdict(guard, mcpContext({ target: 'export' }))).toMatchObject({
      message: 'Rate limit reached for "export": at most 1 call(s) per 10 s. Retry in 10 s.',
    });
    for (let i = 0; i < 150; i++) expect(await verdict(guard, mcpContext({ target: 'health' }))).toBe(true);
    expect(keys.filter((key) => key.includes('health'))).toEqual([]);
  });

  describe('outside MCP calls', () => {
    it('throttles HTTP routes exactly as ThrottlerGuard does: by IP, with rate-limit headers and its own exception', async () => {
      const guard = await guardWith([{ ttl: 60_000, limit: 1 }]);
      const first = httpContext('203.0.113.5');
      expect(await verdict(guard, first.context)).toBe(true);
      expect(first.headers).toEqual({ 'X-RateLimit-Limit': 1, 'X-RateLimit-Remaining': 0, 'X-RateLimit-Reset': 60 });
      const second = httpContext('203.0.113.5');
      const refused = await verdict(guard, second.context);
      expect(refused).toBeInstanceOf(ThrottlerException);
      expect(refused).not.toBeInstanceOf(McpThrottledException);
      expect((refused as ThrottlerException).message).toBe('ThrottlerException: Too Many Requests');
      expect(second.headers).toEqual({ 'Retry-After': 60 });
      // Another address has its own count; keys are the base guard's hashes, not MCP keys.
      expect(await verdict(guard, httpContext('203.0.113.6').context)).toBe(true);
      expect(keys.every((key) => /^[0-9a-f]{64}$/.test(key))).toBe(true);
      expect(new Set(keys).size).toBe(2);
    });
  });
});
