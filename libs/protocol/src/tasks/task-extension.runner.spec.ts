import type { CallToolResult, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import {
  JsonRpcError,
  JsonRpcErrorCode,
  McpClientRequestError,
  STATELESS_PROTOCOL_VERSION,
  type McpPrincipal,
} from '#libs/core';
import type { RegisteredTool } from '#libs/catalog';
import type { CallContext, CallFailure, Invocation, ToolInvoker } from '#libs/invocation';
import { CallScope } from '../calls/call-scope';
import { InputRounds } from '../inputs/input-rounds';
import { RequestStateSealer } from '../inputs/request-state.sealer';
import type { McpRequest } from '../requests/mcp-request';
import { admittedCall, callRequest, RecordingReply } from '../testing/protocol-testing';
import { StatelessCalls } from '../calls/stateless-calls';
import { McpRequestObservers } from '../events/request-observers';
import { RequestNote } from '../events/request-note';
import { RequestEvents } from '../events/request-events';
import { traitsOf } from '../wire/mcp-method.table';
import type { McpRequestEvent } from '../events/mcp-request-event';
import { HostState } from '../lifecycle/host-state';
import type { ProtocolOptions } from '../options/protocol.options';
import { McpSession } from '../sessions/mcp-session';
import { TaskQuota } from './task-quota';
import { TaskExtensionRunner } from './task-extension.runner';
import { TaskHandOff } from './task-hand-off';
import { TaskLife } from './task-life';
import { TaskStatusEvents } from './task-status.events';
import type { TaskStatusChange } from './task-status-change';
import { InMemoryTaskStore } from './task.store';
import { TASKS_EXTENSION } from './tasks-extension';

const REQUEST_STATE = { requestState: { secrets: undefined, ttlMs: 600_000 } };

const TASK_TTL = 60_000;
const MAX_TASKS = 10;
const TOOL = { name: 'import_orders', options: { task: 'optional' } } as unknown as RegisteredTool;
const MANUAL_TOOL = {
  name: 'import_chosen_file',
  options: { task: 'optional', taskStart: 'manual' },
} as unknown as RegisteredTool;
const ASK = { message: 'Import which file?', requestedSchema: { type: 'object' as const, properties: {} } };

/** A tool call the test settles by hand, and what the runner handed the invoker. */
interface PendingCall {
  context: CallContext;
  timeoutMs: number;
  resolve: (result: CallToolResult, failure?: CallFailure) => void;
  reject: (error: unknown) => void;
}

/**
 * The runner with the real store, call scope, telemetry and status events; only the tool invoker
 * is a stand-in (it has a spec of its own): the test plays the handler through the call's context.
 */
const everyCall: PendingCall[] = [];

function setup() {
  const calls: PendingCall[] = [];
  const invoker = {
    // The admission checks the arguments; these tests hand them over as checked.
    check: (_tool: RegisteredTool, args: unknown) => args,
    invoke: (_tool: RegisteredTool, _args: unknown, context: CallContext, _confirm: boolean, timeoutMs: number) =>
      new Promise<Invocation<CallToolResult>>((resolve, reject) =>
        everyCall.push(
          calls[
            calls.push({ context, timeoutMs, resolve: (value, failure) => resolve({ value, failure }), reject }) - 1
          ],
        ),
      ),
  } as unknown as ToolInvoker;
  const store = new InMemoryTaskStore();
  const observers = new McpRequestObservers();
  const finished: McpRequestEvent[] = [];
  observers.add({ observe: (event) => finished.push(event) });
  const statusEvents = new TaskStatusEvents();
  const changes: TaskStatusChange[] = [];
  statusEvents.subscribe((change) => changes.push(change));
  const state = new HostState();
  const options = { tasks: { ttlMs: TASK_TTL, maxPerPrincipal: MAX_TASKS } } as ProtocolOptions;
  const callScope = new CallScope(state, new StatelessCalls(), new InputRounds(new RequestStateSealer(REQUEST_STATE)));
  const life = new TaskLife(
    options,
    store,
    invoker,
    callScope,
    new RequestEvents(observers),
    state,
    new TaskQuota(options),
  );
  const runner = new TaskExtensionRunner(options, life, new TaskHandOff(callScope, life), statusEvents);
  return { runner, store, calls, finished, changes, state };
}

/** The way back of each request `scopeOf` made. */
const replies = new WeakMap<McpRequest, RecordingReply>();

/**
 * A 2026-07-28 `tools/call` of `principal` (with `params`), declaring the tasks extension unless
 * told otherwise, and what reached the request's own stream.
 */
function scopeOf(
  principal: string,
  {
    extension = true,
    params = {},
    id = 7,
  }: {
    extension?: boolean;
    capabilities?: Record<string, unknown>;
    params?: Record<string, unknown>;
    id?: number;
  } = {},
) {
  const session = McpSession.forRequest(
    {
      protocolVersion: STATELESS_PROTOCOL_VERSION,
      clientInfo: { name: 'test-client', version: '1.0.0' },
      clientCapabilities: { elicitation: {}, ...(extension && { extensions: { [TASKS_EXTENSION]: {} } }) },
      logLevel: undefined,
    },
    principal,
  );
  const caller: McpPrincipal = { id: principal, scopes: [], roles: [], claims: {} };
  const scope = callRequest('tools/call', params, { session, transport: 'http', principal: caller, headers: {} }, id);
  const reply = new RecordingReply();
  replies.set(scope, reply);
  return { scope, onRequest: reply.sent };
}

const noteOf = (scope: McpRequest) =>
  new RequestNote(
    'tools/call',
    traitsOf('tools/call'),
    'http',
    scope.principal.id,
    undefined,
    undefined,
    undefined,
    STATELESS_PROTOCOL_VERSION,
  );

/** The call of `tool` a request makes, admitted. */
const callOf = (scope: McpRequest, tool: RegisteredTool, note = noteOf(scope)) =>
  admittedCall(scope, tool, {}, { reply: replies.get(scope), note });

/** Lets the promise chains behind a settled call run to their end. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

async function startTask(runner: TaskExtensionRunner, scope: McpRequest, tool = TOOL) {
  return JSON.parse(await runner.start(callOf(scope, tool), false)) as Record<string, unknown> & {
    taskId: string;
  };
}

const getTask = async (runner: TaskExtensionRunner, taskId: unknown, scope: McpRequest) =>
  JSON.parse(await runner.get(taskId, scope)) as Record<string, unknown>;

const rpcError = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a JSON-RPC error');
    },
    (error: JsonRpcError) => ({ code: error.code, message: error.message, data: error.data }),
  );

const TEXT = (text: string): CallToolResult => ({ content: [{ type: 'text', text }] });

describe('TaskExtensionRunner', () => {
  // Calls a test left running are cancelled, which drops their requests' timers.
  afterEach(() => {
    for (const call of everyCall.splice(0)) call.context.cancellation.cancel(new Error('test over'));
  });

  describe('start', () => {
    it('refuses a task beyond maxTasksPerPrincipal, counted per principal (running and kept ones alike)', async () => {
      const { runner, calls } = setup();
      const { scope } = scopeOf('alice');
      for (let i = 0; i < MAX_TASKS; i++) await startTask(runner, scope);
      calls[0].resolve(TEXT('done')); // an ended task is still kept, with its result
      await settle();
      expect(await rpcError(startTask(runner, scope))).toMatchObject({
        code: JsonRpcErrorCode.INVALID_PARAMS,
        message: expect.stringMatching(/^Too many tasks: "alice" already holds 10 \(maxTasksPerPrincipal\)/),
      });
      expect(calls).toHaveLength(MAX_TASKS);
      expect((await startTask(runner, scopeOf('bob').scope)).status).toBe('working');
    });

    it('holds the host open until the run is stored and recorded, not only until the call returns', async () => {
      const { runner, calls, state, finished } = setup();
      const { scope } = scopeOf('alice');
      await startTask(runner, scope);
      expect(state.pendingWork).toBe(1);
      calls[0].resolve(TEXT('done'));
      expect(state.pendingWork).toBe(1);
      await settle();
      expect(state.pendingWork).toBe(0);
      expect(finished.map((event) => event.method)).toEqual(['tasks/run']);
    });

    it('answers a flat CreateTaskResult once the task is stored: resultType "task", ttlMs and pollIntervalMs, no outcome', async () => {
      const { runner, calls, store } = setup();
      const { scope } = scopeOf('alice');
      const created = await startTask(runner, scope);
      expect(created).toEqual({
        resultType: 'task',
        taskId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        status: 'working',
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/),
        lastUpdatedAt: created.createdAt,
        ttlMs: TASK_TTL,
        pollIntervalMs: 500,
      });
      expect(await store.get(created.taskId)).toMatchObject({ owner: { principal: 'alice', session: undefined } });
      // The call runs in the background, for as long as the task is kept.
      expect(calls).toHaveLength(1);
      expect(calls[0].timeoutMs).toBe(TASK_TTL);
    });

    it('inlines the result once completed, a tool error included (completed, not failed), without related-task _meta', async () => {
      const { runner, calls } = setup();
      const { scope } = scopeOf('alice');
      const { taskId } = await startTask(runner, scope);
      expect(await getTask(runner, taskId, scope)).toMatchObject({ status: 'working' });
      expect(await getTask(runner, taskId, scope)).not.toHaveProperty('result');
      calls[0].resolve({ ...TEXT('3 orders failed to import'), isError: true }, 'error');
      await settle();
      const task = await getTask(runner, taskId, scope);
      expect(task).toMatchObject({ taskId, status: 'completed', ttlMs: TASK_TTL });
      expect(task.result).toEqual({ ...TEXT('3 orders failed to import'), isError: true });
      expect(task).not.toHaveProperty('error');
    });

    it('fails the task with the JSON-RPC error the call threw, and audits the run with it', async () => {
      const { runner, calls, finished } = setup();
      const { scope } = scopeOf('alice');
      const { taskId } = await startTask(runner, scope);
      calls[0].reject(new JsonRpcError(JsonRpcErrorCode.INTERNAL_ERROR, 'The orders database is down'));
      await settle();
      const task = await getTask(runner, taskId, scope);
      expect(task).toMatchObject({
        status: 'failed',
        error: { code: JsonRpcErrorCode.INTERNAL_ERROR, message: 'The orders database is down' },
      });
      expect(task).not.toHaveProperty('result');
      expect(finished).toEqual([
        expect.objectContaining({
          method: 'tasks/run',
          target: 'import_orders',
          errorCode: JsonRpcErrorCode.INTERNAL_ERROR,
          protocolVersion: STATELESS_PROTOCOL_VERSION,
        }),
      ]);
    });
  });

  describe('input requests (tasks/update)', () => {
    it('shows what the call waits on as input_required and resumes it with the answer', async () => {
      const { runner, calls } = setup();
      const { scope } = scopeOf('alice');
      const { taskId } = await startTask(runner, scope);
      const answer = calls[0].context.elicit(ASK);
      await settle();
      const waiting = await getTask(runner, taskId, scope);
      expect(waiting).toMatchObject({
        status: 'input_required',
        inputRequests: { 'elicitation-1': { method: 'elicitation/create', params: ASK } },
      });
      const accepted: ElicitResult = { action: 'accept', content: { file: 'orders.csv' } };
      expect(await runner.update(taskId, { 'elicitation-1': accepted }, scope)).toBe('{}');
      await expect(answer).resolves.toEqual(accepted);
      // The ack comes once the status shows the answer.
      const working = await getTask(runner, taskId, scope);
      expect(working).toMatchObject({ status: 'working' });
      expect(working).not.toHaveProperty('inputRequests');
    });

    it('takes a partial set of answers and ignores keys that are not outstanding', async () => {
      const { runner, calls } = setup();
      const { scope } = scopeOf('alice');
      const { taskId } = await startTask(runner, scope);
      const first = calls[0].context.elicit(ASK);
      const second = calls[0].context.elicit({ ...ASK, message: 'Overwrite existing orders?' });
      await settle();
      expect(Object.keys((await getTask(runner, taskId, scope)).inputRequests as object)).toEqual([
        'elicitation-1',
        'elicitation-2',
      ]);
      await runner.update(taskId, { 'unknown-key': { ignored: true } }, scope);
      expect(Object.keys((await getTask(runner, taskId, scope)).inputRequests as object)).toHaveLength(2);
      await runner.update(taskId, { 'elicitation-1': { action: 'decline' } }, scope);
      await expect(first).resolves.toEqual({ action: 'decline' });
      expect(await getTask(runner, taskId, scope)).toMatchObject({
        status: 'input_required',
        inputRequests: { 'elicitation-2': expect.any(Object) },
      });
      expect((await getTask(runner, taskId, scope)).inputRequests).not.toHaveProperty('elicitation-1');
      // An answered key is not outstanding any more: a repeat is ignored.
      await runner.update(taskId, { 'elicitation-1': { action: 'accept' } }, scope);
      await runner.update(taskId, { 'elicitation-2': { action: 'accept', content: {} } }, scope);
      await expect(second).resolves.toEqual({ action: 'accept', content: {} });
      expect(await getTask(runner, taskId, scope)).toMatchObject({ status: 'working' });
    });

    it('never reuses a key over the task’s life', async () => {
      const { runner, calls } = setup();
      const { scope } = scopeOf('alice');
      const { taskId } = await startTask(runner, scope);
      const first = calls[0].context.elicit(ASK);
      await settle();
      await runner.update(taskId, { 'elicitation-1': { action: 'accept', content: {} } }, scope);
      await first;
      // Left unanswered: the call is cancelled when the test ends.
      calls[0].context.elicit(ASK).catch(() => undefined);
      await settle();
      expect(Object.keys((await getTask(runner, taskId, scope)).inputRequests as object)).toEqual(['elicitation-2']);
    });

    it('refuses answers that are not objects with -32602', async () => {
      const { runner } = setup();
      const { scope } = scopeOf('alice');
      const { taskId } = await startTask(runner, scope);
      expect(await rpcError(runner.update(taskId, 'yes', scope))).toMatchObject({
        code: JsonRpcErrorCode.INVALID_PARAMS,
        message: 'tasks/update: "inputResponses" must be an object',
      });
      expect(await rpcError(runner.update(taskId, { 'elicitation-1': 'yes' }, scope))).toMatchObject({
        code: JsonRpcErrorCode.INVALID_PARAMS,
      });
    });
  });

  describe('cancel', () => {
    it('acknowledges, marks the task cancelled, aborts its call and keeps it cancelled when the call ends', async () => {
      const { runner, calls } = setup();
      const { scope } = scopeOf('alice');
      const { taskId } = await startTask(runner, scope);
      const pendingInput = calls[0].context.elicit(ASK);
      await settle();
      expect(await runner.cancel(taskId, scope)).toBe('{}');
      expect(calls[0].context.signal.aborted).toBe(true);
      await expect(pendingInput).rejects.toBeInstanceOf(McpClientRequestError);
      expect(await getTask(runner, taskId, scope)).toMatchObject({ status: 'cancelled' });
      calls[0].resolve(TEXT('imported anyway'));
      await settle();
      const task = await getTask(runner, taskId, scope);
      expect(task).toMatchObject({ status: 'cancelled' });
      expect(task).not.toHaveProperty('result');
      expect(task).not.toHaveProperty('inputRequests');
    });

    it('acknowledges a task that ended already, alike (idempotent)', async () => {
      const { runner, calls } = setup();
      const { scope } = scopeOf('alice');
      const { taskId } = await startTask(runner, scope);
      calls[0].resolve(TEXT('done'));
      await settle();
      expect(await runner.cancel(taskId, scope)).toBe('{}');
      expect(await runner.cancel(taskId, scope)).toBe('{}');
      expect(await getTask(runner, taskId, scope)).toMatchObject({ status: 'completed' });
    });
  });

  describe('who may see a task', () => {
    it('answers another principal exactly like an unknown task, on every method', async () => {
      const { runner, calls } = setup();
      const { taskId } = await startTask(runner, scopeOf('alice').scope);
      const { scope: mallory } = scopeOf('mallory');
      const unknown = await rpcError(runner.get('no-such-task', mallory));
      expect(unknown.code).toBe(JsonRpcErrorCode.INVALID_PARAMS);
      for (const attempt of [
        runner.get(taskId, mallory),
        runner.update(taskId, {}, mallory),
        runner.cancel(taskId, mallory),
      ])
        expect(await rpcError(attempt)).toEqual({ ...unknown, message: `Unknown task: ${taskId}` });
      expect(calls[0].context.signal.aborted).toBe(false);
    });

    it('refuses a client that did not declare the extension with -32021 naming it', async () => {
      const { runner } = setup();
      const { taskId } = await startTask(runner, scopeOf('alice').scope);
      const { scope } = scopeOf('alice', { extension: false });
      for (const attempt of [runner.get(taskId, scope), runner.update(taskId, {}, scope), runner.cancel(taskId, scope)])
        expect(await rpcError(attempt)).toMatchObject({
          code: JsonRpcErrorCode.MISSING_CLIENT_CAPABILITY,
          data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
        });
    });
  });

  it('publishes every status change with the task as tasks/get shows it and its owner', async () => {
    const { runner, calls, changes } = setup();
    const { scope } = scopeOf('alice');
    const { taskId } = await startTask(runner, scope);
    const input = calls[0].context.elicit(ASK);
    await settle();
    await runner.update(taskId, { 'elicitation-1': { action: 'accept', content: {} } }, scope);
    await input;
    calls[0].resolve(TEXT('12 orders imported'));
    await settle();
    expect(changes.map(({ task }) => task.status)).toEqual(['working', 'input_required', 'working', 'completed']);
    expect(changes.every(({ owner, task }) => owner.principal === 'alice' && task.taskId === taskId)).toBe(true);
    expect(changes[3].task).toEqual(await getTask(runner, taskId, scope));
  });

  it('tells which of the given tasks a caller may follow (its own), for subscriptions/listen', async () => {
    const { runner } = setup();
    const { scope } = scopeOf('alice');
    const { taskId } = await startTask(runner, scope);
    const other = (await startTask(runner, scopeOf('mallory').scope)).taskId;
    expect(await runner.followable([taskId, other, 'no-such-task'], scope)).toEqual([taskId]);
    expect(await rpcError(runner.followable([taskId], scopeOf('alice', { extension: false }).scope))).toMatchObject({
      code: JsonRpcErrorCode.MISSING_CLIENT_CAPABILITY,
    });
  });

  describe("taskStart: 'manual'", () => {
    it('answers with the task once the handler continues as one; its requests to the client then wait for tasks/update', async () => {
      const { runner, calls, store } = setup();
      const { scope } = scopeOf('alice');
      const response = runner.start(callOf(scope, MANUAL_TOOL), false);
      await settle();
      expect(store.size).toBe(0);
      await calls[0].context.continueAsTask();
      const created = JSON.parse(await response) as { resultType: string; taskId: string };
      expect(created).toMatchObject({ resultType: 'task', status: 'working' });
      expect(created).not.toHaveProperty('requestState');
      expect(created).not.toHaveProperty('inputRequests');
      const later = calls[0].context.elicit(ASK);
      await settle();
      expect(await getTask(runner, created.taskId, scope)).toMatchObject({ status: 'input_required' });
      const answer = { action: 'accept', content: { file: 'orders.csv' } };
      await runner.update(created.taskId, { 'elicitation-1': answer }, scope);
      await expect(later).resolves.toEqual(answer);
      calls[0].resolve(TEXT(`Imported ${answer.content.file}`));
      await settle();
      expect(await getTask(runner, created.taskId, scope)).toMatchObject({
        status: 'completed',
        result: TEXT('Imported orders.csv'),
      });
    });

    it('asks before the hand-off through input-required rounds of its own, then becomes a task on the retry', async () => {
      const { runner, calls, store } = setup();
      const { scope } = scopeOf('alice');
      const asking = noteOf(scope);
      const first = runner.start(callOf(scope, MANUAL_TOOL, asking), false);
      await settle();
      const unanswered = calls[0].context.elicit(ASK, { key: 'file' });
      unanswered.catch((error: unknown) => calls[0].reject(error));
      const asked = JSON.parse(await first) as { resultType: string; inputRequests: object; requestState: string };
      expect(asked).toEqual({
        resultType: 'input_required',
        inputRequests: { file: { method: 'elicitation/create', params: ASK } },
        requestState: expect.any(String),
      });
      expect(asking.continuedByRetry).toBe(true);
      expect(store.size).toBe(0);
      // The retry runs the handler again: the answer is there, and the call becomes a task.
      const answer = { action: 'accept', content: { file: 'orders.csv' } };
      const params = { inputResponses: { file: answer }, requestState: asked.requestState };
      const again = scopeOf('alice', { params, id: 8 }).scope;
      const second = runner.start(callOf(again, MANUAL_TOOL, noteOf(again)), false);
      await settle();
      await expect(calls[1].context.elicit(ASK, { key: 'file' })).resolves.toEqual(answer);
      await calls[1].context.continueAsTask();
      const created = JSON.parse(await second) as { resultType: string; taskId: string };
      expect(created).toMatchObject({ resultType: 'task', status: 'working' });
      calls[1].resolve(TEXT(`Imported ${answer.content.file}`));
      await settle();
      expect(await getTask(runner, created.taskId, again)).toMatchObject({
        status: 'completed',
        result: TEXT('Imported orders.csv'),
      });
    });

    it('answers the call’s own result when it ends before becoming a task, and creates none', async () => {
      const { runner, calls, store } = setup();
      const { scope } = scopeOf('alice');
      const response = runner.start(callOf(scope, MANUAL_TOOL, noteOf(scope)), false);
      await settle();
      calls[0].resolve(TEXT('nothing to import'));
      expect(JSON.parse(await response)).toEqual(TEXT('nothing to import'));
      expect(store.size).toBe(0);
    });

    it('lets an error of the request phase (an input-required round) through as the request’s own', async () => {
      const { runner, calls, store } = setup();
      // Sampling a client that did not declare it is refused by the round, before any task.
      const { scope } = scopeOf('alice');
      const response = runner.start(callOf(scope, MANUAL_TOOL), false);
      await settle();
      calls[0].context.sample({ messages: [], maxTokens: 5 }).catch((error: unknown) => calls[0].reject(error));
      expect(await rpcError(response)).toMatchObject({
        code: JsonRpcErrorCode.MISSING_CLIENT_CAPABILITY,
        data: { requiredCapabilities: { sampling: {} } },
      });
      expect(store.size).toBe(0);
    });

    it('stops sending the request’s notifications at the hand-off', async () => {
      const { runner, calls } = setup();
      const { scope, onRequest } = scopeOf('alice');
      // A 2026-07-28 request gets log messages only when its `_meta` names a level.
      scope.session.logLevel = 'info';
      const response = runner.start(callOf(scope, MANUAL_TOOL, noteOf(scope)), false);
      await settle();
      calls[0].context.log.info('before');
      await calls[0].context.continueAsTask();
      await response;
      calls[0].context.log.info('after');
      expect(onRequest.map((message) => JSON.parse(message).params.data)).toEqual(['before']);
    });
  });
});
