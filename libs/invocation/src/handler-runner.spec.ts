import {
  BadRequestException,
  Catch,
  ForbiddenException,
  Inject,
  Injectable,
  Logger,
  ParseIntPipe,
  Scope,
  UseFilters,
  UseGuards,
  UseInterceptors,
  type CallHandler,
  type CanActivate,
  type ExceptionFilter,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import { ApplicationConfig, ExternalContextCreator, REQUEST } from '@nestjs/core';
import { type TestingModule } from '@nestjs/testing';
import { map, of } from 'rxjs';
import { z } from 'zod';
import {
  JsonRpcError,
  JsonRpcErrorCode,
  McpArgs,
  McpContext,
  McpToolError,
  McpTool,
  type McpCallContext,
} from '#libs/core';
import { ToolRegistry, type RegisteredTool } from '#libs/catalog';
import { CallContext } from './context/call-context';
import { HandlerRunner } from './handler-runner';
import { HandlerFailedError } from './results/handler-failed.error';
import { invocationTestingModule, testCallContext } from './testing/invocation-testing';
import { McpExecutionContext } from './mcp-execution-context';

/** What the guard, interceptor and filter saw, in order. */
const seen: string[] = [];

@Injectable()
class RecordingGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const call = McpExecutionContext.create(context);
    seen.push(`guard:${context.getType()}:${call.getCallContext().target}:${JSON.stringify(call.getArgs())}`);
    return call.getCallContext().caller.roles.includes('agent');
  }
}

@Injectable()
class WrappingInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler) {
    seen.push(`interceptor:${context.getType()}:${context.getHandler().name}`);
    return next.handle().pipe(map((value: unknown) => ({ wrapped: value })));
  }
}

/** Turns any failure of its handler into a message for the model. */
@Catch()
class ToToolErrorFilter implements ExceptionFilter {
  catch(exception: Error, host: { getType(): string }) {
    seen.push(`filter:${host.getType()}:${exception.message}`);
    throw new McpToolError(`Lookup is unavailable right now (${exception.message})`);
  }
}

/** Answers the failure with a value of its own: that becomes the handler's result. */
@Catch(RangeError)
class FallbackFilter implements ExceptionFilter {
  catch() {
    return { fallback: true };
  }
}

@Injectable()
class DeskTools {
  @McpTool({ description: 'Echoes', input: z.object({ text: z.string() }) })
  echo(@McpArgs() args: { text: string }, @McpContext() call: McpCallContext) {
    return { text: args.text, caller: call.caller.id, kind: call.kind };
  }

  @McpTool({ description: 'Agents only', input: z.object({ id: z.string() }) })
  @UseGuards(RecordingGuard)
  guarded(@McpArgs('id') id: string) {
    seen.push('handler');
    return `closed ${id}`;
  }

  @McpTool({ description: 'Wrapped' })
  @UseInterceptors(WrappingInterceptor)
  wrapped() {
    seen.push('handler');
    return 'inner';
  }

  @McpTool({ description: 'Doubles', input: z.object({ n: z.string() }) })
  double(@McpArgs('n', ParseIntPipe) n: number) {
    return n * 2;
  }

  @McpTool({ description: 'Filtered' })
  @UseFilters(ToToolErrorFilter)
  filtered() {
    throw new Error('upstream 503');
  }

  @McpTool({ description: 'Falls back' })
  @UseFilters(FallbackFilter)
  fallback() {
    throw new RangeError('out of range');
  }

  @McpTool({ description: 'Crashes' })
  crash(): never {
    throw new TypeError('cannot read x of undefined password=hunter2 rejected');
  }

  @McpTool({ description: 'Refuses on purpose' })
  closed() {
    throw new McpToolError('Ticket T-1 is already closed; reopen it first.');
  }

  @McpTool({ description: 'Nest exceptions' })
  forbidden() {
    throw new ForbiddenException('Only supervisors may do this');
  }

  @McpTool({ description: 'Validation failure with several messages' })
  invalid() {
    throw new BadRequestException(['name must be a string', 'age must be a number']);
  }

  @McpTool({ description: 'Protocol failure' })
  protocol() {
    throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, 'cursor is not valid');
  }

  @McpTool({ description: 'Streams its answer' })
  counts() {
    return of(1, 2, 3);
  }

  @McpTool({ description: 'Waits to be aborted' })
  waits(@McpContext() call: McpCallContext) {
    return new Promise((_resolve, reject) => {
      if (call.signal.aborted) reject(new Error('aborted'));
      call.signal.addEventListener('abort', () => reject(new Error('aborted')));
    });
  }
}

let made = 0;

@Injectable({ scope: Scope.REQUEST })
class PerCallTools {
  private readonly number = ++made;

  constructor(@Inject(REQUEST) private readonly call: McpCallContext) {}

  @McpTool({ description: 'Which instance served which call' })
  whoAmI() {
    return `instance ${this.number} for request ${this.call.requestId}`;
  }
}

const callContext = (target: string, roles: string[] = [], requestId: string | number = 1): CallContext =>
  testCallContext(target, { roles, requestId });

describe('HandlerRunner', () => {
  let moduleRef: TestingModule;
  let runner: HandlerRunner;
  let tools: ToolRegistry;
  let logged: jest.SpyInstance;

  const tool = (name: string): RegisteredTool => tools.get(name)!;
  const failureOf = (promise: Promise<unknown>) =>
    promise.then(
      () => Promise.reject(new Error('expected a failure')),
      (error: unknown) => error,
    );

  beforeAll(async () => {
    moduleRef = await invocationTestingModule([DeskTools, PerCallTools, RecordingGuard]);
    runner = moduleRef.get(HandlerRunner);
    tools = moduleRef.get(ToolRegistry);
  });

  afterAll(() => moduleRef.close());

  beforeEach(() => {
    seen.length = 0;
    logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });

  afterEach(() => logged.mockRestore());

  it('calls the method with the arguments and the call context its parameters ask for', async () => {
    expect(await runner.run(tool('echo'), { text: 'hi' }, callContext('echo'))).toEqual({
      text: 'hi',
      caller: 'alice',
      kind: 'tool',
    });
  });

  describe('guards', () => {
    it("run in an 'mcp' context that carries the arguments and the call", async () => {
      expect(await runner.run(tool('guarded'), { id: 'T-1' }, callContext('guarded', ['agent']))).toBe('closed T-1');
      expect(seen).toEqual(['guard:mcp:guarded:{"id":"T-1"}', 'handler']);
    });

    it('refuse the call before the method runs, with a 403 the client is told about', async () => {
      const context = callContext('guarded', ['viewer']);
      const error = await failureOf(runner.run(tool('guarded'), { id: 'T-1' }, context));
      expect(error).toBeInstanceOf(ForbiddenException);
      expect(seen).toEqual(['guard:mcp:guarded:{"id":"T-1"}']);
      expect(runner.classify(tool('guarded'), error, context)).toEqual({
        kind: 'business',
        outcome: 'denied',
        message: 'Forbidden resource',
      });
    });
  });

  it('runs interceptors around the method, which may change its result', async () => {
    expect(await runner.run(tool('wrapped'), {}, callContext('wrapped'))).toEqual({ wrapped: 'inner' });
    expect(seen).toEqual(['interceptor:mcp:wrapped', 'handler']);
  });

  it('runs an innermost interceptor given per call after the method’s own ones', async () => {
    const ref = { ...tool('wrapped') };
    const innermost: NestInterceptor = {
      intercept: (_context, next) => {
        seen.push('innermost');
        return next.handle().pipe(map((value: unknown) => `<${String(value)}>`));
      },
    };
    expect(await runner.run(ref, {}, callContext('wrapped'), innermost)).toEqual({ wrapped: '<inner>' });
    expect(seen).toEqual(['interceptor:mcp:wrapped', 'innermost', 'handler']);
  });

  describe('pipes', () => {
    it('transform a parameter', async () => {
      expect(await runner.run(tool('double'), { n: '21' }, callContext('double'))).toBe(42);
    });

    it("refuse a value they cannot take with Nest's 400, reported as invalid arguments", async () => {
      const context = callContext('double');
      const error = await failureOf(runner.run(tool('double'), { n: 'twenty' }, context));
      expect(error).toBeInstanceOf(BadRequestException);
      expect(runner.classify(tool('double'), error, context)).toEqual({
        kind: 'business',
        outcome: 'invalid',
        message: 'Validation failed (numeric string is expected)',
      });
    });
  });

  describe('exception filters', () => {
    it("catch the method's failure in the 'mcp' context and may turn it into a message for the model", async () => {
      const context = callContext('filtered');
      const error = await failureOf(runner.run(tool('filtered'), {}, context));
      expect(seen).toEqual(['filter:mcp:upstream 503']);
      expect(runner.classify(tool('filtered'), error, context)).toEqual({
        kind: 'business',
        outcome: 'tool_error',
        message: 'Lookup is unavailable right now (upstream 503)',
      });
    });

    it('may answer with a result of their own', async () => {
      expect(await runner.run(tool('fallback'), {}, callContext('fallback'))).toEqual({ fallback: true });
    });
  });

  describe('failures', () => {
    it('reports a crash as an internal failure with a reference, and logs the stack redacted, on the server only', async () => {
      const context = callContext('crash');
      const error = await failureOf(runner.run(tool('crash'), {}, context));
      const failure = runner.classify(tool('crash'), error, context);
      expect(failure).toEqual({
        kind: 'internal',
        outcome: 'error',
        reference: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
      const reference = (failure as { reference: string }).reference;
      const ours = logged.mock.calls.find(([message]) => message === `DeskTools.crash failed (reference ${reference})`);
      expect(ours).toBeDefined();
      expect(ours![1]).toContain('TypeError: cannot read x of undefined password=[REDACTED] rejected');
      expect(ours![1]).toContain('handler-runner.spec.ts');
    });

    it('tells the client of a crash only the reference (runOrThrow, for prompts and resources)', async () => {
      const error = (await failureOf(
        runner.runOrThrow(tool('crash'), {}, callContext('crash'), 'Prompt "crash"'),
      )) as HandlerFailedError;
      expect(error).toBeInstanceOf(HandlerFailedError);
      expect(error).toBeInstanceOf(JsonRpcError);
      expect(error.failure).toBe('error');
      expect(error.code).toBe(JsonRpcErrorCode.INTERNAL_ERROR);
      expect(error.message).toMatch(/^Prompt "crash" failed with an internal error \(reference [0-9a-f-]{36}\)$/);
      expect(JSON.stringify({ message: error.message, data: error.data })).not.toMatch(/hunter2|TypeError|at /);
    });

    it.each([
      ['closed', { kind: 'business', message: 'Ticket T-1 is already closed; reopen it first.' }, 'tool_error'],
      ['forbidden', { kind: 'business', message: 'Only supervisors may do this' }, 'denied'],
      ['invalid', { kind: 'business', message: 'name must be a string; age must be a number' }, 'invalid'],
    ])('passes on the message of a failure meant for the client (%s)', async (name, expected, recorded) => {
      const context = callContext(name);
      const error = await failureOf(runner.run(tool(name), {}, context));
      expect(runner.classify(tool(name), error, context)).toEqual({ ...expected, outcome: recorded });
      const thrown = (await failureOf(
        runner.runOrThrow(tool(name), {}, callContext(name), `Prompt "${name}"`),
      )) as HandlerFailedError;
      expect(thrown).toBeInstanceOf(HandlerFailedError);
      expect([thrown.code, thrown.message, thrown.failure]).toEqual([
        JsonRpcErrorCode.INTERNAL_ERROR,
        `Prompt "${name}" failed: ${expected.message}`,
        recorded,
      ]);
      expect(logged).not.toHaveBeenCalledWith(expect.stringContaining(`DeskTools.${name} failed`), expect.anything());
    });

    it('lets protocol errors through as they are', async () => {
      const context = callContext('protocol');
      const error = await failureOf(runner.run(tool('protocol'), {}, context));
      expect(runner.classify(tool('protocol'), error, context)).toEqual({ kind: 'protocol', error });
      const thrown = (await failureOf(
        runner.runOrThrow(tool('protocol'), {}, callContext('protocol'), 'Resource'),
      )) as JsonRpcError;
      expect([thrown.code, thrown.message]).toEqual([JsonRpcErrorCode.INVALID_PARAMS, 'cursor is not valid']);
      // The dispatcher records a protocol error from its code: it carries no outcome of its own.
      expect(thrown).not.toBeInstanceOf(HandlerFailedError);
    });

    it('prefixes a business failure with the label in runOrThrow', async () => {
      const thrown = (await failureOf(
        runner.runOrThrow(tool('closed'), {}, callContext('closed'), 'Prompt "closed"', { name: 'closed' }),
      )) as JsonRpcError;
      expect([thrown.code, thrown.message, thrown.data]).toEqual([
        JsonRpcErrorCode.INTERNAL_ERROR,
        'Prompt "closed" failed: Ticket T-1 is already closed; reopen it first.',
        { name: 'closed' },
      ]);
      expect((thrown as HandlerFailedError).failure).toBe('tool_error');
    });

    it('reports a call that failed because it was cancelled as cancelled, not as a crash', async () => {
      const context = callContext('waits');
      const running = failureOf(runner.run(tool('waits'), {}, context));
      context.cancellation.cancel(new Error('client went away'));
      const error = await running;
      expect(runner.classify(tool('waits'), error, context)).toEqual({ kind: 'cancelled', outcome: 'cancelled' });
      const cancelled = callContext('waits');
      const thrown = failureOf(runner.runOrThrow(tool('waits'), {}, cancelled, 'Resource "waits"'));
      cancelled.cancellation.cancel(new Error('client went away'));
      expect(await thrown).toMatchObject({
        code: JsonRpcErrorCode.INTERNAL_ERROR,
        message: 'Resource "waits" failed: cancelled',
        failure: 'cancelled',
      });
    });
  });

  it('makes a request-scoped provider per call, with the call context as REQUEST', async () => {
    const ref = tool('whoAmI');
    expect(ref.instance).toBeUndefined();
    const first = await runner.run(ref, {}, callContext('whoAmI', [], 'a'));
    const second = await runner.run(ref, {}, callContext('whoAmI', [], 'b'));
    expect([first, second]).toEqual([`instance ${made - 1} for request a`, `instance ${made} for request b`]);
  });

  it('reports pipe classes that cannot be made at start-up (none here)', async () => {
    expect(await runner.prepareAll(tools.all())).toEqual([]);
  });
});

describe('HandlerRunner, for an entry no enhancer applies to', () => {
  const run = async (setUp: (config: ApplicationConfig) => void, name: string, roles: string[] = []) => {
    const moduleRef = await invocationTestingModule([DeskTools]);
    setUp(moduleRef.get(ApplicationConfig));
    const pipeline = jest.spyOn(moduleRef.get(ExternalContextCreator), 'create');
    const runner = moduleRef.get(HandlerRunner);
    const result = await runner
      .run(moduleRef.get(ToolRegistry).get(name)!, { text: 'hi' }, testCallContext(name, { roles }))
      .catch((error: unknown) => error);
    await moduleRef.close();
    return { result, pipelineBuilt: pipeline.mock.calls.length > 0 };
  };

  it("calls the method without building Nest's pipeline, with the parameters it asks for", async () => {
    expect(await run(() => undefined, 'echo')).toEqual({
      result: { text: 'hi', caller: 'alice', kind: 'tool' },
      pipelineBuilt: false,
    });
  });

  it('answers with the last value of an Observable, as the pipeline does', async () => {
    expect(await run(() => undefined, 'counts')).toEqual({ result: 3, pipelineBuilt: false });
  });

  it('logs an unexpected error as Nest does, and lets an intended one through unlogged', async () => {
    const moduleRef = await invocationTestingModule([DeskTools]);
    const runner = moduleRef.get(HandlerRunner);
    const registry = moduleRef.get(ToolRegistry);
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    await runner.run(registry.get('crash')!, {}, testCallContext('crash')).catch(() => undefined);
    expect(
      logged.mock.contexts.some((logger) => (logger as { context?: string }).context === 'ExceptionsHandler'),
    ).toBe(true);
    logged.mockClear();
    await runner.run(registry.get('closed')!, {}, testCallContext('closed')).catch(() => undefined);
    expect(logged).not.toHaveBeenCalled();
    logged.mockRestore();
    await moduleRef.close();
  });

  it.each([
    ['a global interceptor', (config: ApplicationConfig) => config.useGlobalInterceptors(new WrappingInterceptor())],
    ['a global filter', (config: ApplicationConfig) => config.useGlobalFilters(new FallbackFilter())],
    ['a global pipe', (config: ApplicationConfig) => config.useGlobalPipes({ transform: (value: unknown) => value })],
  ])("goes through Nest's pipeline once the app has %s", async (_, setUp) => {
    const { result, pipelineBuilt } = await run(setUp, 'echo');
    expect(pipelineBuilt).toBe(true);
    expect(result).not.toBeInstanceOf(Error);
  });

  it("asks the app's guards first, in the 'mcp' context, and refuses as Nest does", async () => {
    const guard = (config: ApplicationConfig) => config.useGlobalGuards(new RecordingGuard());
    seen.length = 0;
    const refused = await run(guard, 'echo');
    expect(refused.pipelineBuilt).toBe(false);
    expect(refused.result).toBeInstanceOf(ForbiddenException);
    expect((refused.result as ForbiddenException).message).toBe('Forbidden resource');
    expect(seen).toEqual(['guard:mcp:echo:{"text":"hi"}']);
    const allowed = await run(guard, 'echo', ['agent']);
    expect(allowed).toEqual({ result: { text: 'hi', caller: 'alice', kind: 'tool' }, pipelineBuilt: false });
  });
});
