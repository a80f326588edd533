import { Injectable, Logger } from '@nestjs/common';
import { type TestingModule } from '@nestjs/testing';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  JsonRpcError,
  JsonRpcErrorCode,
  McpArgs,
  McpContext,
  McpTool,
  McpToolError,
  RETRY_AFTER_META,
  type JsonSchemaObject,
  type McpCallContext,
} from '#libs/core';
import { ToolRegistry, type RegisteredTool } from '#libs/catalog';
import { McpThrottledException } from '#libs/security';
import { CallContext } from './context/call-context';
import { invocationTestingModule, testCallContext } from './testing/invocation-testing';
import { ToolInvoker } from './tool.invoker';

/** The arguments each tool's method received, by tool. */
const received = new Map<string, unknown>();

/** Calls of `slow` waiting to be released by the test. */
const releases: (() => void)[] = [];

const TICKET = z.object({ title: z.string().min(3), priority: z.enum(['low', 'high']) });
const NOTE_SCHEMA: JsonSchemaObject = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };

@Injectable()
class DeskTools {
  @McpTool({ description: 'Opens a ticket', input: TICKET })
  create_ticket(@McpArgs() args: z.infer<typeof TICKET>) {
    received.set('create_ticket', args);
    return `opened "${args.title}"`;
  }

  @McpTool({ description: 'Strips what is not declared', input: NOTE_SCHEMA, unknownArguments: 'strip' })
  note_strip(@McpArgs() args: unknown) {
    received.set('note_strip', args);
    return 'ok';
  }

  @McpTool({ description: 'Takes what is not declared', input: NOTE_SCHEMA, unknownArguments: 'allow' })
  note_allow(@McpArgs() args: unknown) {
    received.set('note_allow', args);
    return 'ok';
  }

  @McpTool({ description: 'Counts tickets', output: z.object({ open: z.number() }) })
  count(@McpContext() call: McpCallContext) {
    return call.meta.answer;
  }

  @McpTool({ description: 'Never answers in time', timeoutMs: 30 })
  stuck() {
    return new Promise(() => undefined);
  }

  @McpTool({ description: 'Gives up when its call is cancelled' })
  abortable(@McpContext() call: McpCallContext) {
    return new Promise((_resolve, reject) => call.signal.addEventListener('abort', () => reject(new Error('aborted'))));
  }

  @McpTool({ description: 'Uses the default deadline' })
  slow() {
    return new Promise<string>((resolve) => releases.push(() => resolve('finally')));
  }

  @McpTool({ description: 'One at a time', maxConcurrency: 1 })
  exclusive() {
    return new Promise<string>((resolve) => releases.push(() => resolve('done')));
  }

  @McpTool({ description: 'Leaks secrets', output: z.object({ dsn: z.string() }) })
  leaky() {
    return { dsn: 'postgres://desk:s3cr3t@db:5432/desk' };
  }

  @McpTool({ description: 'Leaks secrets in an error' })
  leaky_error() {
    throw new McpToolError('login refused for password=hunter2');
  }

  @McpTool({ description: 'Answers an error result of its own' })
  refuses() {
    return { content: [{ type: 'text', text: 'no such customer\nfor password=hunter2' }], isError: true };
  }

  @McpTool({ description: 'Throttled' })
  throttled() {
    throw new McpThrottledException('Rate limit reached for "throttled". Retry in 7 s.', 7);
  }

  @McpTool({ description: 'Crashes' })
  crash() {
    throw new Error('database unreachable at 10.1.2.3');
  }

  @McpTool({ description: 'Protocol error' })
  protocol() {
    throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, 'bad cursor');
  }
}

const callContext = (target: string, meta: Record<string, unknown> = {}): CallContext =>
  testCallContext(target, { meta });

const text = (result: CallToolResult) =>
  result.content.map((block) => (block.type === 'text' ? block.text : `<${block.type}>`)).join('\n');

type RestOf<F> = F extends (tool: never, args: never, ...rest: infer R) => unknown ? R : never;

describe('ToolInvoker', () => {
  let moduleRef: TestingModule;
  /** The invoker as the admission drives it: the arguments checked, then the call run with them. */
  let invoker: {
    invoke: (
      tool: RegisteredTool,
      args: unknown,
      ...rest: RestOf<ToolInvoker['invoke']>
    ) => ReturnType<ToolInvoker['invoke']>;
  };
  let tools: ToolRegistry;
  let logged: jest.SpyInstance;

  const tool = (name: string): RegisteredTool => tools.get(name)!;

  beforeAll(async () => {
    moduleRef = await invocationTestingModule([DeskTools]);
    const real = moduleRef.get(ToolInvoker);
    invoker = { invoke: (tool, args, ...rest) => real.invoke(tool, real.check(tool, args), ...rest) };
    tools = moduleRef.get(ToolRegistry);
  });

  afterAll(() => moduleRef.close());

  beforeEach(() => {
    received.clear();
    logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });

  afterEach(() => {
    for (const release of releases.splice(0)) release();
    logged.mockRestore();
  });

  it('runs the tool with its validated arguments and maps what it returns', async () => {
    const invocation = await invoker.invoke(
      tool('create_ticket'),
      { title: 'Printer jam', priority: 'low' },
      callContext('create_ticket'),
    );
    expect(invocation).toEqual({ value: { content: [{ type: 'text', text: 'opened "Printer jam"' }] } });
    expect(received.get('create_ticket')).toEqual({ title: 'Printer jam', priority: 'low' });
    expect(invocation.failure).toBeUndefined();
    expect(invocation.failureMessage).toBeUndefined();
  });

  describe('argument validation', () => {
    it('answers an error result that names every field at fault, and does not run the tool', async () => {
      const {
        value: result,
        failure,
        failureMessage,
      } = await invoker.invoke(tool('create_ticket'), { title: 'x', priority: 'urgent' }, callContext('create_ticket'));
      expect(result.isError).toBe(true);
      expect(text(result)).toBe(
        'Invalid arguments for tool "create_ticket":\n' +
          '- title: Too small: expected string to have >=3 characters\n' +
          '- priority: Invalid option: expected one of "low"|"high"',
      );
      expect(received.has('create_ticket')).toBe(false);
      expect(failure).toBe('invalid');
      expect(failureMessage).toBe(text(result).replace(/\s*\n\s*/g, ' '));
    });

    it('treats missing arguments as an empty object, so required fields are named', async () => {
      const { value: result } = await invoker.invoke(tool('create_ticket'), undefined, callContext('create_ticket'));
      expect(result.isError).toBe(true);
      expect(text(result)).toBe(
        'Invalid arguments for tool "create_ticket":\n' +
          '- title: Invalid input: expected string, received undefined\n' +
          '- priority: Invalid option: expected one of "low"|"high"',
      );
    });

    it('refuses arguments the schema does not declare (the default policy), naming them and what is accepted', async () => {
      const { value: result, failure } = await invoker.invoke(
        tool('create_ticket'),
        { title: 'Printer jam', priority: 'low', id: 'T-9' },
        callContext('create_ticket'),
      );
      expect(result).toEqual({
        content: [
          {
            type: 'text',
            text: 'Invalid arguments for tool "create_ticket":\n- id: is not an accepted argument (accepted: title, priority)',
          },
        ],
        isError: true,
      });
      expect(received.has('create_ticket')).toBe(false);
      expect(failure).toBe('invalid');
    });

    it('reports undeclared and invalid arguments of one call together', async () => {
      const { value: result } = await invoker.invoke(
        tool('create_ticket'),
        { title: 'x', priority: 'low', id: 'T-9' },
        callContext('create_ticket'),
      );
      expect(text(result)).toMatch(
        /^Invalid arguments for tool "create_ticket":\n- id: is not an accepted argument \(accepted: title, priority\)\n- title: .+$/,
      );
    });

    it("strips undeclared arguments under the tool's 'strip' policy", async () => {
      const { value: result, failure } = await invoker.invoke(
        tool('note_strip'),
        { text: 'hello', id: 'T-9' },
        callContext('note_strip'),
      );
      expect(result.isError).toBeUndefined();
      expect(failure).toBeUndefined();
      expect(received.get('note_strip')).toEqual({ text: 'hello' });
    });

    it("passes undeclared arguments through under the tool's 'allow' policy", async () => {
      await invoker.invoke(tool('note_allow'), { text: 'hello', id: 'T-9' }, callContext('note_allow'));
      expect(received.get('note_allow')).toEqual({ text: 'hello', id: 'T-9' });
    });
  });

  describe('output schema', () => {
    it('returns conforming output as structured content with its JSON as text', async () => {
      expect(await invoker.invoke(tool('count'), {}, callContext('count', { answer: { open: 3 } }))).toEqual({
        value: { content: [{ type: 'text', text: '{"open":3}' }], structuredContent: { open: 3 } },
      });
    });

    it('answers an error result (and logs the mismatch) when the output does not match', async () => {
      const { value, failure } = await invoker.invoke(
        tool('count'),
        {},
        callContext('count', { answer: { open: 'many' } }),
      );
      expect(value).toEqual({
        content: [
          {
            type: 'text',
            text: 'Tool "count" produced a result that does not match its output schema; the error was logged on the server.',
          },
        ],
        isError: true,
      });
      expect(failure).toBe('error');
      expect(logged).toHaveBeenCalledWith(
        'DeskTools.count returned output that fails its schema: open: Invalid input: expected number, received string',
      );
    });

    it('answers an error result when a tool with an output schema returns no object', async () => {
      const { value, failure } = await invoker.invoke(tool('count'), {}, callContext('count', { answer: 'three' }));
      expect(value).toEqual({
        content: [
          {
            type: 'text',
            text: 'Tool "count" declares an output schema but returned no structured object; the error was logged on the server.',
          },
        ],
        isError: true,
      });
      expect(failure).toBe('error');
    });
  });

  describe('deadlines', () => {
    it("stops a tool at its own timeout: an error result, and the call's signal aborted", async () => {
      const context = callContext('stuck');
      const started = Date.now();
      const {
        value: result,
        failure,
        failureMessage,
      } = await invoker.invoke(tool('stuck'), {}, context, false, 60_000);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(result).toEqual({
        content: [
          {
            type: 'text',
            text: 'Tool "stuck" timed out after 30 ms and was stopped. Try again with a narrower request.',
          },
        ],
        isError: true,
      });
      expect(failure).toBe('timeout');
      expect(failureMessage).toBe(
        'Tool "stuck" timed out after 30 ms and was stopped. Try again with a narrower request.',
      );
      expect(context.signal.aborted).toBe(true);
      expect((context.signal.reason as Error).message).toBe('timed out after 30 ms');
    });

    it('answers at once when the host cancels the call at shutdown, whatever the tool does with its signal', async () => {
      const context = callContext('slow');
      const invocation = invoker.invoke(tool('slow'), {}, context, false, 60_000);
      await new Promise((resolve) => setImmediate(resolve));
      context.cancellation.cancelForShutdown();
      const { value: result, failure } = await invocation;
      expect(failure).toBe('cancelled');
      expect(text(result)).toBe(
        'Call to tool "slow" was cancelled: the host is shutting down and the call did not finish in time. It may have done part of its work; check before you retry it.',
      );
      expect(result.isError).toBe(true);
      expect(context.signal.aborted).toBe(true);
      releases.splice(0).forEach((release) => release());
    });

    it('uses the deadline the caller gives when the tool has none', async () => {
      const { value: result, failure } = await invoker.invoke(tool('slow'), {}, callContext('slow'), false, 20);
      expect(failure).toBe('timeout');
      expect(text(result)).toBe(
        'Tool "slow" timed out after 20 ms and was stopped. Try again with a narrower request.',
      );
    });

    it('answers normally when the tool finishes in time', async () => {
      const pending = invoker.invoke(tool('slow'), {}, callContext('slow'), false, 5_000);
      await new Promise((resolve) => setTimeout(resolve, 10));
      releases.shift()!();
      expect(await pending).toEqual({ value: { content: [{ type: 'text', text: 'finally' }] } });
    });
  });

  describe('concurrency', () => {
    it('answers "busy" beyond maxConcurrency, and frees the slot when the running call ends', async () => {
      const first = invoker.invoke(tool('exclusive'), {}, callContext('exclusive'));
      const { value: second, failure } = await invoker.invoke(tool('exclusive'), {}, callContext('exclusive'));
      expect(second).toEqual({
        content: [{ type: 'text', text: 'Tool "exclusive" is busy (1 call(s) already running). Retry in a moment.' }],
        isError: true,
      });
      expect(failure).toBe('limited');
      await new Promise((resolve) => setTimeout(resolve, 10));
      releases.shift()!();
      expect(text((await first).value)).toBe('done');
      const third = invoker.invoke(tool('exclusive'), {}, callContext('exclusive'));
      await new Promise((resolve) => setTimeout(resolve, 10));
      releases.shift()!();
      expect(text((await third).value)).toBe('done');
    });
  });

  describe('redaction', () => {
    it('hands a result over as the tool made it: governance screens it, then CallScope redacts it where it leaves', async () => {
      expect(await invoker.invoke(tool('leaky'), {}, callContext('leaky'))).toEqual({
        value: {
          content: [{ type: 'text', text: '{"dsn":"postgres://desk:s3cr3t@db:5432/desk"}' }],
          structuredContent: { dsn: 'postgres://desk:s3cr3t@db:5432/desk' },
        },
      });
    });

    it('removes secrets from error results and from what the audit trail keeps of them', async () => {
      expect(await invoker.invoke(tool('leaky_error'), {}, callContext('leaky_error'))).toEqual({
        value: { content: [{ type: 'text', text: 'login refused for password=[REDACTED]' }], isError: true },
        failure: 'tool_error',
        failureMessage: 'login refused for password=[REDACTED]',
      });
    });
  });

  describe('failures', () => {
    it('says when to retry a throttled call, in words and in _meta', async () => {
      const { value, failure } = await invoker.invoke(tool('throttled'), {}, callContext('throttled'));
      expect(value).toEqual({
        content: [{ type: 'text', text: 'Rate limit reached for "throttled". Retry in 7 s.' }],
        isError: true,
        _meta: { [RETRY_AFTER_META]: 7 },
      });
      expect(failure).toBe('throttled');
    });

    it('reports a crash with a reference only', async () => {
      const { value: result, failure, failureMessage } = await invoker.invoke(tool('crash'), {}, callContext('crash'));
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(
        /^Tool "crash" failed with an internal error \(reference [0-9a-f-]{36}\)\. The details were logged on the server\.$/,
      );
      expect(JSON.stringify(result)).not.toContain('10.1.2.3');
      expect(failure).toBe('error');
      expect(failureMessage).toBe(text(result));
    });

    it('records an error result the tool answers itself as tool_error, redacted and on one line', async () => {
      expect(await invoker.invoke(tool('refuses'), {}, callContext('refuses'))).toEqual({
        value: { content: [{ type: 'text', text: 'no such customer\nfor password=[REDACTED]' }], isError: true },
        failure: 'tool_error',
        failureMessage: 'no such customer for password=[REDACTED]',
      });
    });

    it('keeps the first outcome: a call that timed out stays timed out when the tool then fails as cancelled', async () => {
      const context = callContext('abortable');
      const invocation = await invoker.invoke(tool('abortable'), {}, context, false, 20);
      // The tool saw the abort and rejected; its late failure changes nothing already answered.
      await new Promise((resolve) => setImmediate(resolve));
      expect(context.signal.aborted).toBe(true);
      expect(invocation).toEqual({
        value: {
          content: [
            {
              type: 'text',
              text: 'Tool "abortable" timed out after 20 ms and was stopped. Try again with a narrower request.',
            },
          ],
          isError: true,
        },
        failure: 'timeout',
        failureMessage: 'Tool "abortable" timed out after 20 ms and was stopped. Try again with a narrower request.',
      });
    });

    it('rejects with a protocol error instead of answering a result', async () => {
      await expect(invoker.invoke(tool('protocol'), {}, callContext('protocol'))).rejects.toMatchObject({
        code: JsonRpcErrorCode.INVALID_PARAMS,
        message: 'bad cursor',
      });
    });

    it('reports a call that failed because it was cancelled as cancelled', async () => {
      const context = callContext('abortable');
      const pending = invoker.invoke(tool('abortable'), {}, context, false, 5_000);
      await new Promise((resolve) => setTimeout(resolve, 10));
      context.cancellation.cancel(new Error('client went away'));
      expect(await pending).toEqual({
        value: { content: [{ type: 'text', text: 'Call to tool "abortable" was cancelled.' }], isError: true },
        failure: 'cancelled',
        failureMessage: 'Call to tool "abortable" was cancelled.',
      });
    });
  });
});
