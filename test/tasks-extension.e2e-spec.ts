import type { INestApplication } from '@nestjs/common';
import { CreateTaskResultSchema, GetTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { LEDGER_GATE, LEDGER_RUNS, TaskExtensionFixtureModule } from './fixtures/task-extension.fixtures';
import { connectHttpClient, startFixtureApp } from './support/fixture-app';
import { startIssuer, type TestIssuer } from './support/issuer';
import { waitFor, waitForAsync } from './support/wait-for';

const VERSION = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';
const DECLARING = { elicitation: {}, extensions: { [TASKS]: {} } };

interface Answer {
  status: number;
  result?: Record<string, unknown> & { taskId?: string; status?: string; resultType?: string };
  error?: { code: number; message: string; data?: unknown };
}

let nextId = 0;

/**
 * One 2026-07-28 request as a client of that revision sends it: the `_meta` envelope in the body,
 * the version and routing headers on the POST (`Mcp-Name` mirrors the tool name or the task id).
 */
async function send(
  url: string,
  token: string,
  method: string,
  params: Record<string, unknown> = {},
  capabilities: Record<string, unknown> = DECLARING,
): Promise<Answer> {
  const name = typeof params.taskId === 'string' ? params.taskId : typeof params.name === 'string' ? params.name : '';
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${token}`,
      'mcp-protocol-version': VERSION,
      'mcp-method': method,
      ...(name && { 'mcp-name': name }),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: ++nextId,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': VERSION,
          'io.modelcontextprotocol/clientCapabilities': capabilities,
          'io.modelcontextprotocol/clientInfo': { name: 'e2e-2026', version: '1.0.0' },
        },
      },
    }),
  });
  const text = await response.text();
  // An answer may come on an event stream: its last data line is the response.
  const json = response.headers.get('content-type')?.includes('text/event-stream')
    ? JSON.parse(
        text
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .at(-1)!
          .slice(5),
      )
    : JSON.parse(text);
  return { status: response.status, result: json.result, error: json.error };
}

/**
 * The tasks extension (SEP-2663) over Streamable HTTP with OAuth: a 2026-07-28 client that
 * declares it gets a long call as a task, polls it, answers what it asks, and cancels it; a task
 * belongs to the principal that created it. 2025-11-25 clients keep the experimental tasks on the
 * same endpoint.
 */
describe('tasks extension (2026-07-28) over Streamable HTTP', () => {
  let app: INestApplication;
  let url: string;
  let issuer: TestIssuer;
  let alice: string;
  let mallory: string;

  beforeAll(async () => {
    issuer = await startIssuer();
    ({ app, url } = await startFixtureApp(
      {
        auth: issuer.hostAuth(),
      },
      (options) => TaskExtensionFixtureModule.register(options),
    ));
    alice = await issuer.sign({ sub: 'alice', scope: 'mcp' });
    mallory = await issuer.sign({ sub: 'mallory', scope: 'mcp' });
  });

  afterAll(async () => {
    await app.close();
    await issuer.close();
  });

  const taskOf = (token: string, taskId: string) => send(url, token, 'tasks/get', { taskId });

  /** Starts the ledger export as alice's task and waits until it asks for confirmation. */
  async function startExport(): Promise<{ taskId: string; key: string }> {
    const created = await send(url, alice, 'tools/call', { name: 'exportLedger', arguments: { year: 2026 } });
    const taskId = created.result!.taskId!;
    let inputRequests: Record<string, { method: string; params: { message: string } }> = {};
    await waitForAsync(async () => {
      const { result } = await taskOf(alice, taskId);
      inputRequests = (result?.inputRequests ?? {}) as typeof inputRequests;
      return result?.status === 'input_required';
    });
    return { taskId, key: Object.keys(inputRequests)[0] };
  }

  it('advertises the extension in server/discover', async () => {
    const { result } = await send(url, alice, 'server/discover');
    expect(result!.capabilities).toMatchObject({ extensions: { [TASKS]: {} } });
    expect(result!.capabilities).not.toHaveProperty('tasks');
  });

  it('runs a long call as a task: created at once, input asked and answered, result inlined when done', async () => {
    const created = await send(url, alice, 'tools/call', { name: 'exportLedger', arguments: { year: 2025 } });
    expect(created.status).toBe(200);
    expect(created.result).toEqual({
      resultType: 'task',
      taskId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'working',
      createdAt: expect.any(String),
      lastUpdatedAt: expect.any(String),
      ttlMs: 3_600_000,
      pollIntervalMs: 500,
    });
    const taskId = created.result!.taskId!;

    let waiting: Answer['result'];
    await waitForAsync(async () => {
      waiting = (await taskOf(alice, taskId)).result;
      return waiting?.status === 'input_required';
    });
    expect(waiting).toMatchObject({ resultType: 'complete', taskId });
    const [key, request] = Object.entries(waiting!.inputRequests as Record<string, unknown>)[0];
    expect(request).toEqual({
      method: 'elicitation/create',
      params: {
        message: 'Export the 2025 ledger?',
        requestedSchema: { type: 'object', properties: { format: { type: 'string' } }, required: ['format'] },
      },
    });

    const ack = await send(url, alice, 'tasks/update', {
      taskId,
      inputResponses: { [key]: { action: 'accept', content: { format: 'csv' } } },
    });
    expect(ack).toEqual({ status: 200, result: { resultType: 'complete' }, error: undefined });
    expect((await taskOf(alice, taskId)).result).toMatchObject({ status: 'working' });

    LEDGER_GATE.release();
    let done: Answer['result'];
    await waitForAsync(async () => {
      done = (await taskOf(alice, taskId)).result;
      return done?.status === 'completed';
    });
    expect(done!.result).toEqual({ content: [{ type: 'text', text: 'Ledger 2025 exported as csv for alice' }] });
  });

  it("answers another principal's requests for a task exactly like an unknown task, and lets the task run", async () => {
    const { taskId, key } = await startExport();
    const unknown = await taskOf(mallory, 'no-such-task');
    expect(unknown.error).toMatchObject({ code: -32602 });
    for (const [method, params] of [
      ['tasks/get', { taskId }],
      ['tasks/update', { taskId, inputResponses: { [key]: { action: 'decline' } } }],
      ['tasks/cancel', { taskId }],
    ] as const) {
      const answer = await send(url, mallory, method, params);
      expect(answer).toEqual({
        status: unknown.status,
        result: undefined,
        error: { ...unknown.error, message: `Unknown task: ${taskId}` },
      });
    }
    // Nothing of mallory's reached the task: it still waits for alice.
    expect((await taskOf(alice, taskId)).result).toMatchObject({
      status: 'input_required',
      inputRequests: { [key]: expect.any(Object) },
    });
    expect(LEDGER_RUNS.at(-1)).toEqual({ caller: 'alice', phase: 'asking', aborted: false });
    await send(url, alice, 'tasks/cancel', { taskId });
  });

  it('cancels a task: an empty ack, the status cancelled, the tool aborted; cancelling again is acknowledged alike', async () => {
    const { taskId, key } = await startExport();
    await send(url, alice, 'tasks/update', {
      taskId,
      inputResponses: { [key]: { action: 'accept', content: { format: 'pdf' } } },
    });
    // The tool has its answer and works now.
    await waitFor(() => LEDGER_RUNS.at(-1)!.phase === 'working');
    const ack = await send(url, alice, 'tasks/cancel', { taskId });
    expect(ack.result).toEqual({ resultType: 'complete' });
    expect((await taskOf(alice, taskId)).result).toMatchObject({ status: 'cancelled' });
    await waitFor(() => LEDGER_RUNS.at(-1)!.aborted);
    expect((await send(url, alice, 'tasks/cancel', { taskId })).result).toEqual({ resultType: 'complete' });
    expect((await taskOf(alice, taskId)).result).not.toHaveProperty('result');
  });

  it('serves a client without the extension in place, refuses it a task-only tool and the tasks methods (-32021)', async () => {
    const capabilities = { elicitation: {} };
    const plain = await send(
      url,
      alice,
      'tools/call',
      { name: 'countOrders', arguments: { year: 2024 } },
      capabilities,
    );
    expect(plain).toEqual({
      status: 200,
      result: { resultType: 'complete', content: [{ type: 'text', text: '2024: 42 orders' }] },
      error: undefined,
    });
    // The same tool, for a client that declared the extension: a task.
    const declared = await send(url, alice, 'tools/call', { name: 'countOrders', arguments: { year: 2024 } });
    expect(declared.result).toMatchObject({ resultType: 'task', status: 'working' });
    const missing = { code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } };
    const required = await send(url, alice, 'tools/call', { name: 'archiveAll', arguments: {} }, capabilities);
    expect(required).toMatchObject({ status: 400, error: missing });
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel'])
      expect(await send(url, alice, method, { taskId: 'any', inputResponses: {} }, capabilities)).toMatchObject({
        status: 400,
        error: missing,
      });
  });

  it('has no tasks/result or tasks/list in this revision (-32601)', async () => {
    for (const method of ['tasks/result', 'tasks/list'])
      expect((await send(url, alice, method, { taskId: 'any' })).error).toMatchObject({ code: -32601 });
  });

  it('keeps the 2025-11-25 experimental tasks for a 2025 client on the same endpoint, apart from 2026 tasks', async () => {
    const client = await connectHttpClient(url, { authorization: `Bearer ${alice}` });
    try {
      const legacy = await client.request(
        { method: 'tools/call', params: { name: 'archiveAll', arguments: {}, task: {} } },
        CreateTaskResultSchema,
      );
      expect(legacy.task).toMatchObject({ status: 'working', ttl: expect.any(Number) });
      const { taskId } = await startExport();
      // The 2026 task is alice's without a session; the 2025 client asks from its session.
      await expect(
        client.request({ method: 'tasks/get', params: { taskId } }, GetTaskResultSchema),
      ).rejects.toMatchObject({
        code: -32602,
      });
      await send(url, alice, 'tasks/cancel', { taskId });
    } finally {
      await client.close();
    }
  });
});
