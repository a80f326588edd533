import { Injectable, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  InjectThrottlerOptions,
  InjectThrottlerStorage,
  ThrottlerException,
  ThrottlerGuard,
  type ThrottlerLimitDetail,
  type ThrottlerModuleOptions,
  type ThrottlerStorage,
} from '@nestjs/throttler';
import { DecoratorMetadataReflector } from './decorator-metadata.reflector';
import {
  ANONYMOUS_PRINCIPAL,
  MCP_CONTEXT_TYPE,
  MCP_RELAY_METADATA,
  type McpCallContext,
  type McpRetryable,
} from '#libs/core';

const NO_RESPONSE = { header: () => undefined };

/**
 * `@nestjs/throttler`'s guard, taught the `mcp` context: calls are counted per principal (per
 * client address for anonymous callers) and per tool, prompt or resource, with the named
 * throttlers, `@Throttle` and `@SkipThrottle` as usual. Over the limit, the call is answered
 * with an error that says when to retry; HTTP routes are throttled exactly as before.
 *
 * @example
 * ```ts
 * imports: [ThrottlerModule.forRoot([{ name: 'burst', ttl: 1_000, limit: 5 }, { name: 'sustained', ttl: 60_000, limit: 100 }])],
 * providers: [{ provide: APP_GUARD, useClass: McpThrottlerGuard }],
 * ```
 */
@Injectable()
export class McpThrottlerGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
  ) {
    // The guard reads five decorators per throttler on every call: read once per entry instead.
    super(options, storage, new DecoratorMetadataReflector(reflector));
  }

  protected override getRequestResponse(context: ExecutionContext): {
    req: Record<string, unknown>;
    res: Record<string, unknown>;
  } {
    if (context.getType<string>() !== MCP_CONTEXT_TYPE) return super.getRequestResponse(context);
    const call = context.getArgByIndex<McpCallContext>(1);
    return { req: { headers: call.headers, mcp: call }, res: NO_RESPONSE };
  }

  /** A relay (`call_tool`) is not counted: the call it makes is, as a call of its own. */
  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    if (
      context.getType<string>() === MCP_CONTEXT_TYPE &&
      this.reflector.getAllAndOverride<boolean>(MCP_RELAY_METADATA, [context.getHandler(), context.getClass()])
    )
      return true;
    return super.shouldSkip(context);
  }

  protected override async getTracker(req: Record<string, unknown>): Promise<string> {
    const call = req.mcp as McpCallContext | undefined;
    if (!call) return super.getTracker(req);
    return call.caller.id !== ANONYMOUS_PRINCIPAL.id
      ? `principal:${call.caller.id}`
      : `address:${call.remoteAddress ?? call.transport}`;
  }

  protected override generateKey(context: ExecutionContext, suffix: string, name: string): string {
    if (context.getType<string>() !== MCP_CONTEXT_TYPE) return super.generateKey(context, suffix, name);
    const call = context.getArgByIndex<McpCallContext>(1);
    return `mcp:${call.kind}:${call.target}:${name}:${suffix}`;
  }

  protected override async throwThrottlingException(
    context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    if (context.getType<string>() !== MCP_CONTEXT_TYPE) return super.throwThrottlingException(context, detail);
    const call = context.getArgByIndex<McpCallContext>(1);
    const retryIn = Math.max(1, Math.ceil(detail.timeToBlockExpire));
    throw new McpThrottledException(
      `Rate limit reached for "${call.target}": at most ${detail.limit} call(s) per ${Math.round(detail.ttl / 1000)} s. Retry in ${retryIn} s.`,
      retryIn,
    );
  }
}

/**
 * A throttled MCP call: the message says when to retry, and so does `retryAfterSeconds`, which
 * the host puts in the error result's `_meta` (`RETRY_AFTER_META`) for clients to act on.
 */
export class McpThrottledException extends ThrottlerException implements McpRetryable {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}
