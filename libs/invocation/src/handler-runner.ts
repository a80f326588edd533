import { randomUUID } from 'node:crypto';
import { HttpException, Injectable, Logger, type NestInterceptor } from '@nestjs/common';
import { INTERCEPTORS_METADATA } from '@nestjs/common/constants.js';
import { ApplicationConfig, ContextIdFactory, ExternalContextCreator, ModuleRef, ModulesContainer } from '@nestjs/core';
import {
  JsonRpcError,
  JsonRpcErrorCode,
  MCP_CONTEXT_TYPE,
  McpToolError,
  retryAfterOf,
  type McpDiagnostic,
} from '#libs/core';
import type { RegisteredHandler } from '#libs/catalog';
import type { CallContext } from './context/call-context';
import { directHandler, type NestHandler } from './direct-handler';
import { InjectInvocationOptions, type InvocationOptions } from './options/invocation.options';
import { McpParamsFactory } from './mcp-params.factory';
import { ParamPipes } from './param-pipes';
import { HandlerFailedError } from './results/handler-failed.error';
import type { CallFailure } from './results/invocation';

const PIPELINE = { guards: true, interceptors: true, filters: true };

const CANCELLED = Object.freeze({ kind: 'cancelled', outcome: 'cancelled' } as const);

/**
 * How a failed handler is reported to the client and, but for protocol errors (which the
 * dispatcher records from their code), the `outcome` the audit trail records for it.
 */
export type HandlerFailure =
  | { kind: 'protocol'; error: JsonRpcError }
  | { kind: 'business'; outcome: CallFailure; message: string; retryAfterSeconds?: number }
  | { kind: 'cancelled'; outcome: 'cancelled' }
  | { kind: 'internal'; outcome: 'error'; reference: string };

/**
 * Runs provider methods (tools, prompts, resources) through Nest's guards, interceptors, pipes
 * and filters, with context type `mcp`. The pipeline is built once per handler, and left out
 * where no enhancer applies (`directHandler`); request-scoped providers get a fresh DI sub-tree
 * per call, with the call context as `REQUEST`.
 */
@Injectable()
export class HandlerRunner {
  private readonly logger = new Logger('McpInvocation');
  private readonly handlers = new WeakMap<RegisteredHandler, NestHandler>();
  private readonly paramsFactory = new McpParamsFactory();
  private readonly pipes: ParamPipes;

  constructor(
    private readonly contextCreator: ExternalContextCreator,
    private readonly moduleRef: ModuleRef,
    @InjectInvocationOptions() private readonly options: InvocationOptions,
    modules: ModulesContainer,
    private readonly config: ApplicationConfig,
  ) {
    this.pipes = new ParamPipes(moduleRef, modules);
  }

  /**
   * Makes the pipe classes of every handler's parameters ahead of the first call, so that one that
   * cannot be created stops the start-up. @returns the problems found, each with its fix
   */
  prepareAll(refs: readonly RegisteredHandler[]): Promise<McpDiagnostic[]> {
    return this.pipes.resolveAll(refs);
  }

  async run(
    ref: RegisteredHandler,
    args: unknown,
    context: CallContext,
    innermost?: NestInterceptor,
  ): Promise<unknown> {
    let handler = this.handlers.get(ref);
    if (!handler) {
      // Resolved at start-up (McpHost); a handler that was not is resolved on its first call.
      const paramsKey = this.pipes.keyOf(ref) ?? (await this.pipes.resolve(ref));
      if (ref.instance) {
        handler = this.handlers.get(ref) ?? this.create(ref, ref.instance, paramsKey, innermost);
        this.handlers.set(ref, handler);
      } else {
        handler = await this.requestScoped(ref, context, paramsKey, innermost);
      }
    }
    return handler(args, context);
  }

  /**
   * Runs a handler whose failures are protocol errors (prompts, resources): a client-facing
   * message becomes `-32603 "<label> failed: <message>"` (`-32029` with `data.retryAfterSeconds`
   * when a throttler refused it); anything else is logged and reported with a reference only.
   * @throws HandlerFailedError when the handler failed, carrying the outcome for the audit trail
   * @throws JsonRpcError the handler's own protocol error, as it is
   */
  async runOrThrow(
    ref: RegisteredHandler,
    args: unknown,
    context: CallContext,
    label: string,
    data?: unknown,
  ): Promise<unknown> {
    try {
      return await this.run(ref, args, context);
    } catch (error) {
      const failure = this.classify(ref, error, context);
      if (failure.kind === 'protocol') throw failure.error;
      const message =
        failure.kind === 'business'
          ? `${label} failed: ${failure.message}`
          : failure.kind === 'cancelled'
            ? `${label} failed: cancelled`
            : `${label} failed with an internal error (reference ${failure.reference})`;
      const retryAfterSeconds = failure.kind === 'business' ? failure.retryAfterSeconds : undefined;
      // A refusal to go on for now is the caller's to retry, not the host's failure.
      const code = failure.outcome === 'throttled' ? JsonRpcErrorCode.THROTTLED : JsonRpcErrorCode.INTERNAL_ERROR;
      throw new HandlerFailedError(
        code,
        message,
        retryAfterSeconds === undefined ? data : { ...(data as object), retryAfterSeconds },
        failure.outcome,
      );
    }
  }

  /**
   * Classifies an exception: `McpToolError` and Nest `HttpException`s carry messages meant for
   * the client; anything else is logged with a reference and reported without its details.
   * Reads the context (was the call cancelled?) but writes nothing on it: the outcome is returned.
   */
  classify(ref: RegisteredHandler, error: unknown, context: CallContext): HandlerFailure {
    if (error instanceof JsonRpcError) return { kind: 'protocol', error };
    if (error instanceof McpToolError) return { kind: 'business', outcome: 'tool_error', message: error.message };
    if (error instanceof HttpException) {
      // Guards refuse with 403, the throttler with 429: the audit trail tells them apart.
      const status = error.getStatus();
      const outcome =
        status === 403 || status === 401
          ? 'denied'
          : status === 429
            ? 'throttled'
            : status === 400
              ? 'invalid'
              : 'tool_error';
      const retryAfterSeconds = retryAfterOf(error);
      return {
        kind: 'business',
        outcome,
        message: httpExceptionMessage(error),
        ...(retryAfterSeconds !== undefined && { retryAfterSeconds }),
      };
    }
    if (context.cancellation.isCancelled) return CANCELLED;
    const reference = randomUUID();
    const details = (error as Error)?.stack ?? String(error);
    this.logger.error(
      `${ref.where} failed (reference ${reference})`,
      this.options.redactor?.redact(details) ?? details,
    );
    return { kind: 'internal', outcome: 'error', reference };
  }

  private create(
    ref: RegisteredHandler,
    instance: object,
    paramsKey: string,
    innermost?: NestInterceptor,
    contextId?: ReturnType<typeof ContextIdFactory.create>,
  ): NestHandler {
    const original = (instance as Record<string, (...args: unknown[]) => unknown>)[ref.methodName];
    if (!innermost && !contextId) {
      const direct = directHandler(
        this.contextCreator,
        this.config,
        instance,
        original,
        ref.methodName,
        paramsKey,
        this.paramsFactory,
        MCP_CONTEXT_TYPE,
      );
      if (direct) return direct;
    }
    const method = innermost ? withInnermostInterceptor(original, innermost) : original;
    return this.contextCreator.create(
      instance,
      method,
      ref.methodName,
      paramsKey,
      this.paramsFactory,
      contextId,
      undefined,
      PIPELINE,
      MCP_CONTEXT_TYPE,
    ) as NestHandler;
  }

  private async requestScoped(
    ref: RegisteredHandler,
    context: CallContext,
    paramsKey: string,
    innermost?: NestInterceptor,
  ): Promise<NestHandler> {
    const contextId = ContextIdFactory.create();
    this.moduleRef.registerRequestByContextId(context, contextId);
    const instance = await this.moduleRef.resolve(ref.hostClass, contextId, { strict: false });
    return this.create(ref, instance, paramsKey, innermost, contextId);
  }
}

/**
 * A stand-in for `method` carrying all its metadata (so guards, `Reflector` and
 * `context.getHandler()` see the same decorators) plus one more interceptor, innermost.
 */
function withInnermostInterceptor(
  method: (...args: unknown[]) => unknown,
  interceptor: NestInterceptor,
): (...args: unknown[]) => unknown {
  const wrapped = function (this: unknown, ...params: unknown[]) {
    return method.apply(this, params);
  };
  for (const key of Reflect.getOwnMetadataKeys(method))
    Reflect.defineMetadata(key, Reflect.getOwnMetadata(key, method), wrapped);
  Reflect.defineMetadata(
    INTERCEPTORS_METADATA,
    [...(Reflect.getOwnMetadata(INTERCEPTORS_METADATA, method) ?? []), interceptor],
    wrapped,
  );
  return wrapped;
}

/** Nest exceptions carry client-facing messages (a `ValidationPipe` gives an array of them). */
function httpExceptionMessage(error: HttpException): string {
  const response = error.getResponse();
  const message =
    typeof response === 'object' && response !== null ? (response as { message?: unknown }).message : response;
  return Array.isArray(message) ? message.join('; ') : String(message ?? error.message);
}
