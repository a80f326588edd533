import { Logger } from '@nestjs/common';
import { RELATED_TASK_META_KEY, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { JsonRpcError, JsonRpcErrorCode, LATEST_PROTOCOL_VERSION, type McpPrincipal } from '#libs/core';
import type { RegisteredTool } from '#libs/catalog';
import type { CallContext, CallFailure, Invocation, ToolInvoker } from '#libs/invocation';
import { CallScope } from '../calls/call-scope';
import { InputRounds } from '../inputs/input-rounds';
import { RequestStateSealer } from '../inputs/request-state.sealer';
import type { McpRequest } from '../requests/mcp-request';
import { admittedCall, callRequest, noteOf, RecordingReply } from '../testing/protocol-testing';
import { StatelessCalls } from '../calls/stateless-calls';
import { McpRequestObservers } from '../events/request-observers';
import { RequestEvents } from '../events/request-events';
import type { McpRequestEvent } from '../events/mcp-request-event';
import { HostState } from '../lifecycle/host-state';
import type { ProtocolOptions } from '../options/protocol.options';
import { McpSession } from '../sessions/mcp-session';
import { TaskQuota } from './task-quota';
import { TaskRunner } from './task.runner';
import { TaskLife } from './task-life';
import { InMemoryTaskStore } from './task.store';

const TASK_TTL = 60_000;
const MAX_TASKS = 10;
const TOOL = { name: 'export_report' } as RegisteredTool;

/** A tool call the test settles by hand, and what the runner handed the invoker. */
interface PendingCall {
  context: CallContext;
  args: unknown;
  confirm: boolean;
  timeoutMs: number;
  /** Answers the call with `result` and, for an error result, the outcome the invoker reports. */
  resolve: (result: CallToolResult, failure?: CallFailure, failureMessage?: string) => void;
  reject: (error: unknown) => void;
}

/**
 * The runner with the real store, call scope and telemetry; only the tool invoker is a stand-in
 * (it has a spec of its own), so each test decides when and how the call ends.
 */
function setup() {
  const calls: PendingCall[] = [];
  const invoker = {
    // The admission checks the arguments; these tests hand them over as checked.
    check: (_tool: RegisteredTool, args: unknown) => args,
    invoke: (_tool: RegisteredTool, args: unknown, context: CallContext, confirm: boolean, timeoutMs: number) =>
      new Promise<Invocation<CallToolResult>>((resolve, reject) =>
        calls.push({
          context,
          args,
          confirm,
          timeoutMs,
          resolve: (value, failure, failureMessage) => resolve({ value, failure, failureMessage }),
          reject,
        }),
      ),
  } as unknown as ToolInvoker;
  const store = new InMemoryTaskStore();
  const observers = new McpRequestObservers();
  const finished: McpRequestEvent[] = [];
  observers.add({ observe: (event) => finished.push(event) });
  const options = {
    tasks: { ttlMs: TASK_TTL, maxPerPrincipal: MAX_TASKS },
    requestState: { secrets: undefined, ttlMs: 600_000 },
  } as ProtocolOptions;
  const state = new HostState();
  const life = new TaskLife(
    options,
    store,
    invoker,
    new CallScope(state, new StatelessCalls(), new InputRounds(new RequestStateSealer(options))),
    new RequestEvents(observers),
    state,
    new TaskQuota(options),
  );
  const runner = new TaskRunner(options, life);
  return { runner, store, calls, finished, state };
}

/** The way back of each request `scopeOf` made. */
const replies = new WeakMap<McpRequest, RecordingReply>();

/** A `tools/call` of `principal` on a session (`null`: stateless), and what reached the session's stream and the request's own. */
function scopeOf(principal: string, sessionId: string | null = 's1') {
  const session = new McpSession(sessionId ?? undefined, LATEST_PROTOCOL_VERSION);
  const onStream: Record<string, unknown>[] = [];
  session.addSink((message) => onStream.push(JSON.parse(message)));
  const caller: McpPrincipal = { id: principal, scopes: [], roles: [], claims: {} };
  const scope = callRequest(
    'tools/call',
    { name: TOOL.name },
    { session, transport: 'http', principal: caller, headers: {} },
    7,
  );
  const reply = new RecordingReply();
  replies.set(scope, reply);
  return { scope, onStream, onRequest: reply.sent };
}

/** The call of the task's tool a request makes, admitted. */
const callOf = (scope: McpRequest, args: unknown, note = noteOf(scope)) =>
  admittedCall(scope, TOOL, args, { reply: replies.get(scope), note });

const created = (scope: McpRequest) => noteOf(scope);

/** Lets the promise chain behind a settled call run to its end. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

async function startTask(
  runner: TaskRunner,
  scope: McpRequest,
  requested: { ttl?: unknown } = {},
  args: unknown = { month: '2026-10' },
) {
  const { task } = await runner.start(callOf(scope, args), requested, false);
  return task;
}

const rpcError = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a JSON-RPC error');
    },
    (error: JsonRpcError) => ({ code: error.code, message: error.message, data: error.data, type: error.constructor }),
  );

describe('TaskRunner', () => {
  afterEach(() => jest.useRealTimers());

  describe('start', () => {
    it('answers at once with a working task, in the protocol shape (no owner, expiry or outcome)', async () => {
      const { runner, calls } = setup();
      const { scope } = scopeOf('alice');
      const task = await startTask(runner, scope, { ttl: 5_000 });
      expect(Object.keys(task).sort()).toEqual([
        'createdAt',
        'lastUpdatedAt',
        'pollInterval',
        'status',
        'taskId',
        'ttl',
      ]);
      expect(task).toEqual({
        taskId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        status: 'working',
        ttl: 5_000,
        createdAt: expect.any(String),
        lastUpdatedAt: task.createdAt,
        pollInterval: 500,
      });
      // The call is running in the background, not finished.
      expect(calls).toHaveLength(1);
    });

    it('keeps a task at most as long as the host allows, and for that long when no valid ttl is asked', async () => {
      const { runner } = setup();
      const { scope } = scopeOf('alice');
      expect((await startTask(runner, scope, { ttl: 10 * TASK_TTL })).ttl).toBe(TASK_TTL);
      expect((await startTask(runner, scope, {})).ttl).toBe(TASK_TTL);
      expect((await startTask(runner, scope, { ttl: -5 })).ttl).toBe(TASK_TTL);
      expect((await startTask(runner, scope, { ttl: '100' })).ttl).toBe(TASK_TTL);
    });

    it('refuses a task beyond maxTasksPerPrincipal, counted per principal (running and kept ones alike)', async () => {
      const { runner, calls } = setup();
      const alice = scopeOf('alice').scope;
      for (let i = 0; i < MAX_TASKS; i++) await startTask(runner, alice);
      calls[0].resolve({ content: [] }); // an ended task is still kept, with its result
      await settle();
      expect(await rpcError(startTask(runner, alice))).toMatchObject({
        code: JsonRpcErrorCode.INVALID_PARAMS,
        message: expect.stringMatching(
          /^Too many tasks: "alice" already holds 10 \(maxTasksPerPrincipal\), running or kept with their results; the oldest is forgotten in 60 s\./,
        ),
      });
      expect(calls).toHaveLength(MAX_TASKS); // nothing ran for the refused one
      expect((await startTask(runner, scopeOf('bob').scope)).status).toBe('working');
    });

    it('holds the host open until the run is stored and recorded, not only until the call returns', async () => {
      const { runner, calls, state, finished } = setup();
      const { scope } = scopeOf('alice');
      await startTask(runner, scope);
      expect(state.pendingWork).toBe(1);
      calls[0].resolve({ content: [{ type: 'text', text: 'done' }] });
      expect(state.pendingWork).toBe(1); // the outcome is not stored yet
      await settle();
      expect(state.pendingWork).toBe(0);
      expect(finished.map((event) => event.method)).toEqual(['tasks/run']);
    });

    it('runs the tool with its arguments, the confirmation flag and the task ttl as its deadline', async () => {
      const { runner, calls } = setup();
      const { scope } = scopeOf('alice');
      await runner.start(callOf(scope, { month: '2026-11' }, created(scope)), {}, true);
      expect(calls[0]).toMatchObject({ args: { month: '2026-11' }, confirm: true, timeoutMs: TASK_TTL });
      expect(calls[0].context.target).toBe('export_report');
      expect(calls[0].context.caller.id).toBe('alice');
    });

    it('registers the running call on the session, so that ending the session cancels it', async () => {
      const { runner, calls } = setup();
      const { scope } = scopeOf('alice');
      const task = await startTask(runner, scope);
      expect([...scope.session.inFlight.keys()]).toEqual([`task:${task.taskId}`]);
      scope.session.close('session ended');
      expect(calls[0].context.signal.aborted).toBe(true);
      calls[0].resolve({ content: [] });
      await settle();
      expect(scope.session.inFlight.size).toBe(0);
    });

    it("sends the call's notifications to the session's stream: the request that created the task is answered already", async () => {
      const { runner, calls } = setup();
      const { scope, onStream, onRequest } = scopeOf('alice');
      await startTask(runner, scope);
      calls[0].context.log.info('halfway');
      expect(onRequest).toEqual([]);
      expect(onStream).toEqual([
        {
          jsonrpc: '2.0',
          method: 'notifications/message',
          params: { level: 'info', logger: 'export_report', data: 'halfway' },
        },
      ]);
    });
  });

  describe('status transitions', () => {
    it('completes with the result, and tells the session', async () => {
      const { runner, calls } = setup();
      const { scope, onStream } = scopeOf('alice');
      const task = await startTask(runner, scope);
      calls[0].resolve({ content: [{ type: 'text', text: 'done' }] });
      await settle();
      const stored = await runner.get(task.taskId, scope);
      expect(stored.status).toBe('completed');
      expect(stored.result).toEqual({ content: [{ type: 'text', text: 'done' }] });
      expect(onStream).toEqual([
        {
          jsonrpc: '2.0',
          method: 'notifications/tasks/status',
          params: { ...task, status: 'completed', lastUpdatedAt: stored.lastUpdatedAt },
        },
      ]);
    });

    it('fails when the tool answers with an error result, and audits the run with the outcome the invoker reports', async () => {
      const { runner, calls, finished } = setup();
      const { scope, onStream } = scopeOf('alice');
      const task = await startTask(runner, scope);
      calls[0].resolve(
        { content: [{ type: 'text', text: 'no data for that month' }], isError: true },
        'tool_error',
        'no data for that month',
      );
      await settle();
      expect((await runner.get(task.taskId, scope)).status).toBe('failed');
      expect(onStream.map((m) => (m.params as { status: string }).status)).toEqual(['failed']);
      expect(finished).toHaveLength(1);
      expect(finished[0]).toMatchObject({
        method: 'tasks/run',
        outcome: 'tool_error',
        errorCode: undefined,
        error: 'no data for that month',
      });
    });

    it('fails with the protocol error the call threw', async () => {
      const { runner, calls } = setup();
      const { scope } = scopeOf('alice');
      const task = await startTask(runner, scope);
      calls[0].reject(new JsonRpcError(-32001, 'audit trail down', { retry: true }));
      await settle();
      const stored = await runner.get(task.taskId, scope);
      expect(stored.status).toBe('failed');
      expect(stored.error).toEqual({ code: -32001, message: 'audit trail down', data: { retry: true } });
    });

    it('fails with a bare internal error when the call crashed, and logs the details on the server only', async () => {
      const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
      const { runner, calls } = setup();
      const { scope } = scopeOf('alice');
      const task = await startTask(runner, scope);
      calls[0].reject(new Error('db password=hunter2 rejected'));
      await settle();
      const stored = await runner.get(task.taskId, scope);
      expect(stored.error).toEqual({ code: JsonRpcErrorCode.INTERNAL_ERROR, message: 'Internal error' });
      expect(logged).toHaveBeenCalledWith(
        `task ${task.taskId} failed`,
        expect.stringContaining('db password=hunter2 rejected'),
      );
      logged.mockRestore();
    });

    it('audits the background run on its own, in the trace of the call that created it', async () => {
      const { runner, calls, finished } = setup();
      const { scope } = scopeOf('alice');
      const note = created(scope);
      note.traceId = 'trace-1';
      await runner.start(callOf(scope, { month: '2026-10' }, note), {}, false);
      expect(finished).toEqual([]);
      calls[0].reject(new JsonRpcError(-32001, 'audit trail down'));
      await settle();
      expect(finished).toHaveLength(1);
      expect(finished[0]).toMatchObject({
        method: 'tasks/run',
        entryKind: 'tool',
        target: 'export_report',
        arguments: { month: '2026-10' },
        principal: 'alice',
        sessionId: 's1',
        protocolVersion: LATEST_PROTOCOL_VERSION,
        traceId: 'trace-1',
        outcome: 'error',
        errorCode: -32001,
        error: 'audit trail down',
      });
    });
  });

  describe('result', () => {
    it('waits for a running task, then returns its result tied to the task', async () => {
      const { runner, calls } = setup();
      const { scope } = scopeOf('alice');
      const task = await startTask(runner, scope);
      let answered: CallToolResult | undefined;
      const pending = runner.result(task.taskId, scope).then((r) => (answered = r));
      await settle();
      expect(answered).toBeUndefined();
      calls[0].resolve({ content: [{ type: 'text', text: 'done' }], _meta: { mine: 1 } });
      await pending;
      expect(answered).toEqual({
        content: [{ type: 'text', text: 'done' }],
        _meta: { mine: 1, [RELATED_TASK_META_KEY]: { taskId: task.taskId } },
      });
    });

    it("returns a failed tool's error result (a tool error is a result, not a protocol error)", async () => {
      const { runner, calls } = setup();
      const { scope } = scopeOf('alice');
      const task = await startTask(runner, scope);
      calls[0].resolve({ content: [{ type: 'text', text: 'no data' }], isError: true });
      expect(await runner.result(task.taskId, scope)).toEqual({
        content: [{ type: 'text', text: 'no data' }],
        isError: true,
        _meta: { [RELATED_TASK_META_KEY]: { taskId: task.taskId } },
      });
    });

    it('throws the protocol error the call failed with', async () => {
      const { runner, calls } = setup();
      const { scope } = scopeOf('alice');
      const task = await startTask(runner, scope);
      calls[0].reject(new JsonRpcError(-32001, 'audit trail down', { retry: true }));
      expect(await rpcError(runner.result(task.taskId, scope))).toEqual({
        code: -32001,
        message: 'audit trail down',
        data: { retry: true },
        type: JsonRpcError,
      });
    });

    it('polls the store for a task another replica runs', async () => {
      jest.useFakeTimers({ now: 1_000_000, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
      const { runner, store } = setup();
      const { scope } = scopeOf('alice');
      const task = {
        taskId: 'remote',
        status: 'working' as const,
        ttl: TASK_TTL,
        createdAt: '',
        lastUpdatedAt: '',
        pollInterval: 500,
        owner: { principal: 'alice', session: 's1' },
        expiresAt: Date.now() + TASK_TTL,
      };
      await store.save(task);
      let answered: CallToolResult | undefined;
      const pending = runner.result('remote', scope).then((r) => (answered = r));
      await jest.advanceTimersByTimeAsync(1_500);
      expect(answered).toBeUndefined();
      await store.save({ ...task, status: 'completed', result: { content: [] } });
      await jest.advanceTimersByTimeAsync(500);
      await pending;
      expect(answered).toEqual({ content: [], _meta: { [RELATED_TASK_META_KEY]: { taskId: 'remote' } } });
      store.onModuleDestroy();
    });
  });

  describe('cancel', () => {
    it('cancels a running task: its status is cancelled, the session is told and the call is aborted', async () => {
      const { runner, calls } = setup();
      const { scope, onStream } = scopeOf('alice');
      const task = await startTask(runner, scope);
      const cancelled = await runner.cancel(task.taskId, scope);
      expect(cancelled).toEqual({
        ...task,
        status: 'cancelled',
        statusMessage: 'Cancelled by the client',
        lastUpdatedAt: expect.any(String),
      });
      expect(calls[0].context.signal.aborted).toBe(true);
      expect((calls[0].context.signal.reason as Error).message).toBe('task cancelled');
      expect(onStream.map((m) => (m.params as { status: string }).status)).toEqual(['cancelled']);
    });

    it('keeps the cancelled status when the aborted call ends afterwards, and has no result to give', async () => {
      const { runner, calls } = setup();
      const { scope, onStream } = scopeOf('alice');
      const task = await startTask(runner, scope);
      await runner.cancel(task.taskId, scope);
      calls[0].resolve({ content: [{ type: 'text', text: 'late' }] });
      await settle();
      expect((await runner.get(task.taskId, scope)).status).toBe('cancelled');
      expect(onStream).toHaveLength(1);
      expect(await rpcError(runner.result(task.taskId, scope))).toMatchObject({
        code: JsonRpcErrorCode.INVALID_PARAMS,
        message: `Task ${task.taskId} was cancelled; it has no result`,
      });
    });

    it('refuses to cancel a task that already ended', async () => {
      const { runner, calls } = setup();
      const { scope } = scopeOf('alice');
      const task = await startTask(runner, scope);
      calls[0].resolve({ content: [] });
      await settle();
      expect(await rpcError(runner.cancel(task.taskId, scope))).toMatchObject({
        code: JsonRpcErrorCode.INVALID_PARAMS,
        message: `Task ${task.taskId} is already completed and cannot be cancelled`,
      });
    });
  });

  describe('ownership', () => {
    it("answers someone else's task exactly like one that does not exist", async () => {
      const { runner, calls } = setup();
      const { scope } = scopeOf('alice', 's1');
      const task = await startTask(runner, scope);
      const unknown = {
        code: JsonRpcErrorCode.INVALID_PARAMS,
        message: `Unknown task: ${task.taskId}`,
        data: undefined,
        type: JsonRpcError,
      };
      const strangers = [scopeOf('bob', 's1').scope, scopeOf('alice', 's2').scope, scopeOf('alice', null).scope];
      for (const stranger of strangers) {
        expect(await rpcError(runner.get(task.taskId, stranger))).toEqual(unknown);
        expect(await rpcError(runner.result(task.taskId, stranger))).toEqual(unknown);
        expect(await rpcError(runner.cancel(task.taskId, stranger))).toEqual(unknown);
      }
      expect(await rpcError(runner.get('no-such-task', scope))).toEqual({
        ...unknown,
        message: 'Unknown task: no-such-task',
      });
      expect(await rpcError(runner.get(42, scope))).toEqual({ ...unknown, message: 'Unknown task: 42' });
      // The stranger's cancel did nothing.
      expect(calls[0].context.cancellation.isCancelled).toBe(false);
    });

    it('lets a stateless caller reach its tasks by principal alone', async () => {
      const { runner } = setup();
      const first = scopeOf('alice', null).scope;
      const task = await startTask(runner, first);
      // Another stateless request of the same principal.
      expect((await runner.get(task.taskId, scopeOf('alice', null).scope)).taskId).toBe(task.taskId);
    });

    it("lists only the caller's tasks, in the protocol shape", async () => {
      const { runner } = setup();
      const alice = scopeOf('alice').scope;
      const a1 = await startTask(runner, alice);
      await startTask(runner, scopeOf('bob').scope);
      const a2 = await startTask(runner, alice);
      expect(await runner.list(0, 10, alice)).toEqual({ tasks: [a1, a2], total: 2 });
      expect(await runner.list(1, 10, alice)).toEqual({ tasks: [a2], total: 2 });
    });
  });

  describe('expiry', () => {
    it('forgets a task once its ttl has passed', async () => {
      jest.useFakeTimers({ now: 1_000_000, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
      const { runner, calls, store } = setup();
      const { scope } = scopeOf('alice');
      const task = await startTask(runner, scope, { ttl: 5_000 });
      calls[0].resolve({ content: [] });
      await settle();
      jest.setSystemTime(1_000_000 + 4_999);
      expect((await runner.get(task.taskId, scope)).status).toBe('completed');
      jest.setSystemTime(1_000_000 + 5_000);
      expect(await rpcError(runner.result(task.taskId, scope))).toMatchObject({
        code: JsonRpcErrorCode.INVALID_PARAMS,
        message: `Unknown task: ${task.taskId}`,
      });
      expect(await runner.list(0, 10, scope)).toEqual({ tasks: [], total: 0 });
      store.onModuleDestroy();
    });
  });

  it('tells terminal statuses apart', () => {
    const task = (status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled') => ({
      taskId: 't',
      status,
      ttl: 1,
      createdAt: '',
      lastUpdatedAt: '',
    });
    expect(
      ['working', 'input_required', 'completed', 'failed', 'cancelled'].map((s) =>
        TaskRunner.isTerminal(task(s as 'working')),
      ),
    ).toEqual([false, false, true, true, true]);
  });
});
