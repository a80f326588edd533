import { Logger } from '@nestjs/common';
import { JsonRpcError, JsonRpcErrorCode, LATEST_PROTOCOL_VERSION, McpClientRequestError } from '#libs/core';
import { PromptRegistry, ToolRegistry, type RegisteredTool } from '#libs/catalog';
import {
  AuditTrail,
  ScopeAndRolePolicy,
  type AuditRecord,
  type AuditSink,
  type AuditTrailSettings,
} from '#libs/security';
import { AccessControl, AccessDeniedError } from '../admission/access-control';
import { CallAdmission } from '../admission/call-admission';
import { CallScope } from '../calls/call-scope';
import { InputRounds } from '../inputs/input-rounds';
import { RequestStateSealer } from '../inputs/request-state.sealer';
import { StatelessCalls } from '../calls/stateless-calls';
import type { McpRequestEvent } from '../events/mcp-request-event';
import { RequestEvents } from '../events/request-events';
import type { RequestNote } from '../events/request-note';
import { McpRequestObservers } from '../events/request-observers';
import { HostState } from '../lifecycle/host-state';
import type { McpMethods, MethodHandler } from '../methods/method-handler';
import type { McpRequest } from '../requests/mcp-request';
import { mcpRequest } from '../requests/mcp-request';
import { admittedCall, originOf, RecordingReply, type RequestOrigin } from '../testing/protocol-testing';
import { resolveProtocolOptions } from '../options/protocol.options';
import { McpSession } from '../sessions/mcp-session';
import type { JsonRpcId, JsonRpcMessage, MessageKind } from '../wire/json-rpc';
import {
  MCP_METHODS,
  MCP_REQUEST_METHODS,
  type McpMethodTraits,
  type McpRequestMethod,
} from '../wire/mcp-method.table';

const PV = 'io.modelcontextprotocol/protocolVersion';
/** The `_meta` of a 2026-07-28 request. */
const ENVELOPE = {
  [PV]: '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'spec-client', version: '2.0.0' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
  'io.modelcontextprotocol/logLevel': 'info',
};
import { McpDispatcher } from './mcp.dispatcher';
import { McpTracing } from './mcp-tracing';

type Handlers = Partial<Record<McpRequestMethod, MethodHandler>>;

/** One handler call, as the group saw it. */
interface Received {
  method: McpRequestMethod;
  params: Record<string, unknown>;
  id: JsonRpcId;
  request: McpRequest;
  reply: RecordingReply;
  note: RequestNote;
}

/** Answers `initialize` and `ping`, like the engine's lifecycle group. */
class LifecycleGroup implements McpMethods {
  readonly methods: Handlers;
  constructor(received: Received[], overrides: Handlers = {}) {
    this.methods = answering(['initialize', 'ping'], received, overrides);
  }
}

/** Answers every other request method of the table (or those given). */
class FeatureGroup implements McpMethods {
  readonly methods: Handlers;
  constructor(
    received: Received[],
    overrides: Handlers = {},
    methods: readonly McpRequestMethod[] = MCP_REQUEST_METHODS.filter((m) => m !== 'initialize' && m !== 'ping'),
  ) {
    this.methods = answering(methods, received, overrides);
  }
}

/** Handlers that record their call and answer `{"answered":method}`, unless `overrides` has one. */
function answering(methods: readonly McpRequestMethod[], received: Received[], overrides: Handlers): Handlers {
  const handlers: Handlers = {};
  for (const method of methods) {
    handlers[method] = (request, reply, note) => {
      received.push({ method, params: request.params, id: request.id!, request, reply: reply as RecordingReply, note });
      const override = overrides[method];
      return override ? override(request, reply, note) : JSON.stringify({ answered: method });
    };
  }
  return handlers;
}

/** A sink kept in memory that refuses to open while `down`, as a database that is unreachable. */
class MemorySink implements AuditSink {
  readonly name = 'memory';
  readonly stored: AuditRecord[] = [];
  constructor(private readonly down: boolean) {}
  open(): Promise<void> {
    return this.down ? Promise.reject(new Error('connection refused')) : Promise.resolve();
  }
  append(records: readonly AuditRecord[]): Promise<void> {
    this.stored.push(...records);
    return Promise.resolve();
  }
}

const TRAIL_SETTINGS: AuditTrailSettings = {
  policy: 'fail-closed',
  bufferSize: 100,
  flushIntervalMs: 5,
  batchSize: 10,
  chain: 'dispatcher-spec',
  recentSize: 10,
  digestKey: undefined,
  spoolFile: undefined,
  refusalWindowMs: 60_000,
};

/** The dispatcher with real events, admission, tracing (no SDK registered) and stateless calls. */
function setup(overrides: Handlers = {}, trail?: AuditTrail) {
  const received: Received[] = [];
  const observers = new McpRequestObservers();
  const events: McpRequestEvent[] = [];
  observers.add({ observe: (event) => events.push(event) });
  const options = resolveProtocolOptions(
    { name: 'spec-host', version: '1.0.0', limits: { maxArguments: 2 } },
    (key, problem) => {
      throw new Error(`${key} ${problem}`);
    },
  );
  const stateless = new StatelessCalls();
  const admission = new CallAdmission(new AccessControl(new ScopeAndRolePolicy()), trail);
  const tracing = new McpTracing(new ToolRegistry(), new PromptRegistry());
  const groups = [new LifecycleGroup(received, overrides), new FeatureGroup(received, overrides)];
  const state = new HostState();
  const dispatcher = new McpDispatcher(
    options,
    groups,
    new RequestEvents(observers),
    admission,
    tracing,
    stateless,
    state,
  );
  const callScope = new CallScope(state, stateless, new InputRounds(new RequestStateSealer(options)));
  return { dispatcher, received, events, callScope, state };
}

/** What a transport hands the dispatcher with a message: who sent it on what, and its way back. */
interface Scope extends RequestOrigin {
  reply: RecordingReply;
  /** The HTTP status of the last answer. */
  status?: number;
}

/** A request scope on an opened session (`sessionId` `null`: stateless, a session of its own per request). */
function scopeOf(who = 'alice', sessionId: string | null = 'session-1', session?: McpSession): Scope {
  return { ...originOf(who, sessionId, session), reply: new RecordingReply() };
}

/** Dispatches `message` as a transport would, and gives the body of the answer (`undefined`: none). */
async function send(
  dispatcher: McpDispatcher,
  kind: MessageKind,
  message: JsonRpcMessage,
  scope: Scope,
): Promise<string | undefined> {
  const { reply, status: _status, ...origin } = scope;
  const answer = await dispatcher.dispatch(mcpRequest({ ...origin, kind, message }), reply);
  scope.status = answer.status;
  expect(reply.answers).toContain(answer);
  return answer.body;
}

const request = (id: JsonRpcId, method: string, params?: Record<string, unknown>): JsonRpcMessage => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params && { params }),
});
const notification = (method: string, params?: Record<string, unknown>): JsonRpcMessage => ({
  jsonrpc: '2.0',
  method,
  ...(params && { params }),
});

/** Lets pending promise callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('McpDispatcher', () => {
  beforeEach(() => {
    // Refusals log at debug, failures at error: keep the test output quiet, and let tests read what was logged.
    jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'debug').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  describe('start-up check of the method groups against the method table', () => {
    const build = (groups: McpMethods[]) => () => setupWith(groups);
    const setupWith = (groups: McpMethods[]) =>
      new McpDispatcher(
        resolveProtocolOptions({ name: 'spec-host', version: '1.0.0' }, () => undefined),
        groups,
        new RequestEvents(new McpRequestObservers()),
        new CallAdmission(new AccessControl(new ScopeAndRolePolicy())),
        new McpTracing(new ToolRegistry(), new PromptRegistry()),
        new StatelessCalls(),
        new HostState(),
      );

    it('starts when every request method of the table has exactly one handler', () => {
      expect(build([new LifecycleGroup([]), new FeatureGroup([])])).not.toThrow();
    });

    it('lists every disagreement at once: a method nobody answers, a method the table lacks, a method answered twice', () => {
      class StrayGroup implements McpMethods {
        readonly methods = { ping: () => '{}', 'tools/frobnicate': () => '{}' } as unknown as McpMethods['methods'];
      }
      const features = new FeatureGroup(
        [],
        {},
        MCP_REQUEST_METHODS.filter((m) => !['initialize', 'ping', 'tasks/cancel', 'resources/read'].includes(m)),
      );
      expect(build([new LifecycleGroup([]), features, new StrayGroup()])).toThrow(
        new Error(
          'The MCP method table and the method groups disagree:\n' +
            '- "ping" is answered by two method groups\n' +
            '- StrayGroup answers "tools/frobnicate", which the method table does not list\n' +
            '- no method group answers "resources/read"\n' +
            '- no method group answers "tasks/cancel"',
        ),
      );
    });

    it('takes a method of both eras answered by one group per era, and names the era a group leaves unanswered or answers twice', () => {
      const eraGroup = (era: 'session' | 'stateless', methods: McpRequestMethod[]) =>
        ({
          era,
          methods: Object.fromEntries(methods.map((m) => [m, () => `{"era":"${era}"}`])),
        }) as McpMethods;
      const others = MCP_REQUEST_METHODS.filter(
        (m) => !['initialize', 'ping', 'tasks/get', 'tasks/cancel'].includes(m),
      );
      const both = [new LifecycleGroup([]), new FeatureGroup([], {}, others)];
      expect(
        build([
          ...both,
          eraGroup('session', ['tasks/get', 'tasks/cancel']),
          eraGroup('stateless', ['tasks/get', 'tasks/cancel']),
        ]),
      ).not.toThrow();
      expect(
        build([
          ...both,
          eraGroup('session', ['tasks/get', 'tasks/cancel']),
          eraGroup('session', ['tasks/get']),
          eraGroup('stateless', ['tasks/get', 'tasks/update' as McpRequestMethod]),
        ]),
      ).toThrow(
        'The MCP method table and the method groups disagree:\n' +
          '- "tasks/get" is answered by two method groups in the session era\n' +
          '- "tasks/update" is answered by two method groups\n' +
          '- no method group answers "tasks/cancel" in the stateless era',
      );
      expect(build([...both, eraGroup('session', ['tasks/get', 'tasks/cancel', 'subscriptions/listen'])])).toThrow(
        'Object answers "subscriptions/listen" in the session era, which the method table does not give it',
      );
    });

    it('counts a method whose handler is left undefined as unanswered', () => {
      class HalfGroup implements McpMethods {
        readonly methods = { 'tasks/list': undefined };
      }
      const features = new FeatureGroup(
        [],
        {},
        MCP_REQUEST_METHODS.filter((m) => !['initialize', 'ping', 'tasks/list'].includes(m)),
      );
      expect(build([new LifecycleGroup([]), features, new HalfGroup()])).toThrow(
        'The MCP method table and the method groups disagree:\n- no method group answers "tasks/list"',
      );
    });
  });

  describe('requests', () => {
    const sessionEra = MCP_REQUEST_METHODS.filter((m) => (MCP_METHODS[m] as McpMethodTraits).era !== 'stateless');
    const statelessEra = MCP_REQUEST_METHODS.filter((m) => (MCP_METHODS[m] as McpMethodTraits).era !== 'session');

    it.each(sessionEra)('routes %s to the group that answers it and wraps its result', async (method) => {
      const { dispatcher, received } = setup();
      const scope = scopeOf();
      const response = await send(dispatcher, 'request', request(`r-${method}`, method, { cursor: 'c1' }), scope);
      expect(response).toBe(
        `{"jsonrpc":"2.0","id":${JSON.stringify(`r-${method}`)},"result":{"answered":${JSON.stringify(method)}}}`,
      );
      expect(received).toHaveLength(1);
      expect(received[0]).toMatchObject({ method, params: { cursor: 'c1' }, id: `r-${method}` });
      expect(received[0].reply).toBe(scope.reply);
      expect(received[0].request.session).toBe(scope.session);
    });

    it.each(statelessEra)(
      'routes a 2026-07-28 %s on a session of its own made from _meta, and adds resultType (and cache hints to cacheable results)',
      async (method) => {
        const { dispatcher, received, events } = setup();
        const scope = scopeOf('alice', null);
        const given = scope.session;
        const response = await send(
          dispatcher,
          'request',
          request(`r-${method}`, method, { cursor: 'c1', _meta: ENVELOPE }),
          scope,
        );
        const cacheable = (MCP_METHODS[method] as McpMethodTraits).cacheable === true;
        expect(JSON.parse(response!)).toEqual({
          jsonrpc: '2.0',
          id: `r-${method}`,
          result: {
            resultType: 'complete',
            ...(cacheable && { ttlMs: 0, cacheScope: 'private' }),
            answered: method,
          },
        });
        const session = received[0].request.session;
        expect(session).not.toBe(given);
        expect(session).toMatchObject({
          id: undefined,
          protocolVersion: '2026-07-28',
          clientInfo: { name: 'spec-client', version: '2.0.0' },
          clientCapabilities: { elicitation: {} },
          logLevel: 'info',
          principalId: 'alice',
        });
        expect(events[0]).toMatchObject({ method, outcome: 'ok', protocolVersion: '2026-07-28' });
      },
    );

    it.each(MCP_REQUEST_METHODS.filter((m) => !statelessEra.includes(m)))(
      'answers a 2026-07-28 %s (removed from that revision) with -32601 and HTTP 404, running nothing',
      async (method) => {
        const { dispatcher, received } = setup();
        const scope = scopeOf('alice', null);
        const response = await send(dispatcher, 'request', request(9, method, { _meta: ENVELOPE }), scope);
        expect(JSON.parse(response!).error).toEqual({
          code: JsonRpcErrorCode.METHOD_NOT_FOUND,
          message: `Method not found: ${method} is not part of protocol 2026-07-28`,
        });
        expect(scope.status).toBe(404);
        expect(received).toHaveLength(0);
      },
    );

    it.each(MCP_REQUEST_METHODS.filter((m) => !sessionEra.includes(m)))(
      'answers %s in a 2025-era session with -32601 (no HTTP status of its own)',
      async (method) => {
        const { dispatcher, received } = setup();
        const scope = scopeOf();
        const response = await send(dispatcher, 'request', request(9, method), scope);
        expect(JSON.parse(response!).error.code).toBe(JsonRpcErrorCode.METHOD_NOT_FOUND);
        expect(scope.status).toBe(200);
        expect(received).toHaveLength(0);
      },
    );

    it.each([
      ['no _meta', undefined, JsonRpcErrorCode.INVALID_PARAMS, '"_meta" is missing'],
      ['no protocol version', { ...ENVELOPE, [PV]: undefined }, JsonRpcErrorCode.INVALID_PARAMS, `"${PV}" is missing`],
      [
        'no client capabilities',
        { [PV]: '2026-07-28' },
        JsonRpcErrorCode.INVALID_PARAMS,
        '"io.modelcontextprotocol/clientCapabilities" must be an object',
      ],
      [
        'a log level that is none',
        { ...ENVELOPE, 'io.modelcontextprotocol/logLevel': 'loud' },
        JsonRpcErrorCode.INVALID_PARAMS,
        '"io.modelcontextprotocol/logLevel" must be one of debug',
      ],
      ['an unknown version', { ...ENVELOPE, [PV]: 'v999' }, JsonRpcErrorCode.UNSUPPORTED_PROTOCOL_VERSION, '"v999"'],
    ])('refuses a 2026-07-28 request with %s (HTTP 400), keeping its id', async (_case, meta, code, message) => {
      const { dispatcher, received, events } = setup();
      const scope = scopeOf('alice', null, new McpSession(undefined, '2026-07-28'));
      const response = await send(dispatcher, 'request', request(41, 'tools/list', meta && { _meta: meta }), scope);
      const { id, error } = JSON.parse(response!);
      expect(id).toBe(41);
      expect(error.code).toBe(code);
      expect(error.message).toContain(message);
      if (code === JsonRpcErrorCode.UNSUPPORTED_PROTOCOL_VERSION)
        expect(error.data).toEqual({
          supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'],
          requested: 'v999',
        });
      expect(scope.status).toBe(400);
      expect(received).toHaveLength(0);
      expect(events[0]).toMatchObject({ method: 'tools/list', errorCode: code });
    });

    it("answers the transport's header mismatch before reading _meta, as the transport says", async () => {
      const { dispatcher, received, events } = setup();
      const mismatch = new JsonRpcError(JsonRpcErrorCode.HEADER_MISMATCH, 'Header mismatch: x', undefined, 400);
      const scope = { ...scopeOf('alice', null), headerMismatch: mismatch };
      const response = await send(dispatcher, 'request', request(5, 'tools/list', { _meta: { [PV]: 'v999' } }), scope);
      expect(JSON.parse(response!).error).toEqual({
        code: JsonRpcErrorCode.HEADER_MISMATCH,
        message: 'Header mismatch: x',
      });
      expect(scope.status).toBe(400);
      expect(received).toHaveLength(0);
      expect(events[0]).toMatchObject({ method: 'tools/list', errorCode: JsonRpcErrorCode.HEADER_MISMATCH });
    });

    it('answers "resource not found" with -32002 in a 2025 session and -32602 to a 2026-07-28 request', async () => {
      const notFound = () => {
        throw new JsonRpcError(JsonRpcErrorCode.RESOURCE_NOT_FOUND, 'Resource not found: x://y', { uri: 'x://y' });
      };
      const { dispatcher } = setup({ 'resources/read': notFound });
      const legacy = await send(dispatcher, 'request', request(1, 'resources/read', { uri: 'x://y' }), scopeOf());
      const modern = await send(
        dispatcher,
        'request',
        request(2, 'resources/read', { uri: 'x://y', _meta: ENVELOPE }),
        scopeOf('alice', null),
      );
      expect(JSON.parse(legacy!).error).toMatchObject({ code: -32002, data: { uri: 'x://y' } });
      expect(JSON.parse(modern!).error).toMatchObject({ code: -32602, data: { uri: 'x://y' } });
    });

    it('hands the handler empty params when the request has none, and keeps a numeric id numeric', async () => {
      const { dispatcher, received } = setup();
      await expect(send(dispatcher, 'request', request(7, 'tools/list'), scopeOf())).resolves.toBe(
        '{"jsonrpc":"2.0","id":7,"result":{"answered":"tools/list"}}',
      );
      expect(received[0].params).toEqual({});
    });

    it('answers a method outside the table with -32601 and records it as not_found', async () => {
      const { dispatcher, received, events } = setup();
      const response = await send(dispatcher, 'request', request(3, 'tools/frobnicate'), scopeOf());
      expect(JSON.parse(response!)).toEqual({
        jsonrpc: '2.0',
        id: 3,
        error: { code: -32601, message: 'Method not found: tools/frobnicate' },
      });
      expect(received).toHaveLength(0);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        method: 'tools/frobnicate',
        outcome: 'not_found',
        errorCode: -32601,
        audited: false,
      });
    });

    it('does not route the internal tasks/run row to anyone', async () => {
      const { dispatcher, received } = setup();
      const response = await send(dispatcher, 'request', request(4, 'tasks/run'), scopeOf());
      expect(JSON.parse(response!).error).toEqual({ code: -32601, message: 'Method not found: tasks/run' });
      expect(received).toHaveLength(0);
    });

    describe('on a session not opened by initialize yet', () => {
      const unopened = () => scopeOf('alice', 'session-1', new McpSession('session-1', LATEST_PROTOCOL_VERSION));

      it('refuses every method but ping and initialize with -32600', async () => {
        const { dispatcher, received, events } = setup();
        const response = await send(dispatcher, 'request', request(1, 'tools/list'), unopened());
        expect(JSON.parse(response!)).toEqual({
          jsonrpc: '2.0',
          id: 1,
          error: {
            code: -32600,
            message:
              'Invalid Request: the session is not initialized; send initialize first (only ping may come before it)',
          },
        });
        expect(received).toHaveLength(0);
        expect(events[0]).toMatchObject({ method: 'tools/list', outcome: 'invalid', errorCode: -32600 });
      });

      it('refuses an unknown method the same way, before looking it up', async () => {
        const { dispatcher } = setup();
        const response = await send(dispatcher, 'request', request(1, 'tools/frobnicate'), unopened());
        expect(JSON.parse(response!).error.code).toBe(-32600);
      });

      it.each(['ping', 'initialize'] as const)('answers %s', async (method) => {
        const { dispatcher, received } = setup();
        await expect(send(dispatcher, 'request', request(1, method), unopened())).resolves.toBe(
          `{"jsonrpc":"2.0","id":1,"result":{"answered":"${method}"}}`,
        );
        expect(received.map((r) => r.method)).toEqual([method]);
      });

      it('does not apply to a stateless request (no session id)', async () => {
        const { dispatcher } = setup();
        const stateless = scopeOf('alice', null, new McpSession(undefined, LATEST_PROTOCOL_VERSION));
        await expect(send(dispatcher, 'request', request(1, 'tools/list'), stateless)).resolves.toBe(
          '{"jsonrpc":"2.0","id":1,"result":{"answered":"tools/list"}}',
        );
      });
    });

    it('refuses params over the request limits with -32602 before the handler runs, as outcome limited', async () => {
      const { dispatcher, received, events } = setup();
      const response = await send(
        dispatcher,
        'request',
        request(2, 'tools/call', { name: 'add', arguments: { a: 1, b: 2, c: 3 } }),
        scopeOf(),
      );
      expect(JSON.parse(response!)).toEqual({
        jsonrpc: '2.0',
        id: 2,
        error: { code: -32602, message: 'Request too large: params.arguments has 3 arguments; at most 2 are accepted' },
      });
      expect(received).toHaveLength(0);
      expect(events[0]).toMatchObject({
        method: 'tools/call',
        outcome: 'limited',
        errorCode: -32602,
        error: 'Request too large: params.arguments has 3 arguments; at most 2 are accepted',
      });
    });

    it.each([
      [
        'a JSON-RPC error, with its data',
        new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, 'Unknown prompt: triage', { name: 'triage' }),
        'invalid',
      ],
      [
        'a missing resource',
        new JsonRpcError(JsonRpcErrorCode.RESOURCE_NOT_FOUND, 'Resource not found: file:///x'),
        'not_found',
      ],
      ['a transport-style code', new JsonRpcError(JsonRpcErrorCode.TRANSPORT_REFUSED, 'Refused'), 'error'],
      [
        'an access-policy refusal',
        new AccessDeniedError(JsonRpcErrorCode.INVALID_PARAMS, 'Unknown prompt: secret'),
        'denied',
      ],
    ])('answers %s thrown by the handler with its code and message', async (_case, error, outcome) => {
      const { dispatcher, events } = setup({
        'prompts/get': () => {
          throw error;
        },
      });
      const response = await send(dispatcher, 'request', request('p', 'prompts/get', { name: 'triage' }), scopeOf());
      expect(JSON.parse(response!)).toEqual({
        jsonrpc: '2.0',
        id: 'p',
        error: { code: error.code, message: error.message, ...(error.data !== undefined && { data: error.data }) },
      });
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ outcome, errorCode: error.code, error: error.message });
    });

    it('keeps the outcome a handler recorded before it threw', async () => {
      const { dispatcher, events } = setup({
        'resources/read': (_request, _reply, note) => {
          note.fail('timeout', undefined, 'too slow');
          throw new JsonRpcError(JsonRpcErrorCode.INTERNAL_ERROR, 'Timed out');
        },
      });
      await send(dispatcher, 'request', request(1, 'resources/read', { uri: 'file:///a' }), scopeOf());
      expect(events[0]).toMatchObject({ outcome: 'timeout', errorCode: -32603, error: 'Timed out' });
    });

    it('answers an unexpected exception with -32603 Internal error, logging it but sending no detail', async () => {
      const { dispatcher, events } = setup({
        'tools/list': async () => {
          throw new Error('connect ECONNREFUSED postgres://admin:hunter2@db');
        },
      });
      const response = await send(dispatcher, 'request', request(9, 'tools/list'), scopeOf());
      expect(response).toBe('{"jsonrpc":"2.0","id":9,"error":{"code":-32603,"message":"Internal error"}}');
      expect(events[0]).toMatchObject({ outcome: 'error', errorCode: -32603, error: 'Internal error' });
      expect(Logger.prototype.error).toHaveBeenCalledWith('tools/list failed', expect.stringContaining('hunter2'));
    });

    it('finishes the note once per request, with the row of the table and the scope', async () => {
      const { dispatcher, events } = setup();
      const scope = scopeOf('bob', 'session-9');
      scope.session.clientInfo = { name: 'inspector', version: '0.1' };
      await send(dispatcher, 'request', request(1, 'initialize'), scope);
      await send(dispatcher, 'request', request(2, 'ping'), scope);
      await send(dispatcher, 'request', request(3, 'tools/call', { name: 'add' }), scope);
      expect(events).toHaveLength(3);
      expect(events.map((e) => [e.method, e.audited, e.outcome])).toEqual([
        ['initialize', true, 'ok'],
        ['ping', false, 'ok'],
        ['tools/call', true, 'ok'],
      ]);
      expect(events[0]).toMatchObject({
        transport: 'http',
        principal: 'bob',
        sessionId: 'session-9',
        client: { name: 'inspector', version: '0.1' },
        remoteAddress: '127.0.0.1',
        refusal: false,
      });
      expect((events[2] as RequestNote).traits).toEqual({
        audited: true,
        guarded: true,
        names: { kind: 'tool', by: 'name' },
        runs: true,
      });
      for (const event of events) expect(event.latencyMs).toBeGreaterThanOrEqual(0);
    });

    it('hands the handler the note the observers then see, with what it filled in', async () => {
      const { dispatcher, events } = setup({
        'tools/call': ({ params }, _reply, note) => {
          note.entry('tool', params.name as string, params.arguments);
          return '{"content":[]}';
        },
      });
      await send(dispatcher, 'request', request(1, 'tools/call', { name: 'add', arguments: { a: 1 } }), scopeOf());
      expect(events[0]).toMatchObject({ entryKind: 'tool', target: 'add', arguments: { a: 1 }, outcome: 'ok' });
    });

    it("gives the note the trace id of the client's traceparent", async () => {
      const { dispatcher, events } = setup();
      const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      await send(dispatcher, 'request', request(1, 'ping', { _meta: { traceparent } }), scopeOf());
      expect(events[0].traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    });
  });

  describe('the audit gate of guarded requests that name no entry (tasks/result)', () => {
    let trail: AuditTrail | undefined;
    afterEach(async () => {
      await trail?.close(0);
      trail = undefined;
    });

    it('refuses tasks/result with -32603 while a fail-closed trail cannot write, recorded as unavailable', async () => {
      trail = new AuditTrail(new MemorySink(true), TRAIL_SETTINGS);
      await trail.start();
      expect(trail.admits()).toBe(false);
      const { dispatcher, received, events } = setup({}, trail);
      const response = await send(dispatcher, 'request', request(5, 'tasks/result', { taskId: 't-1' }), scopeOf());
      expect(JSON.parse(response!)).toEqual({
        jsonrpc: '2.0',
        id: 5,
        error: {
          code: -32603,
          message:
            'Service unavailable: the audit trail cannot be written, so calls are refused until it can (audit policy fail-closed)',
        },
      });
      expect(received).toHaveLength(0);
      expect(events[0]).toMatchObject({ method: 'tasks/result', outcome: 'unavailable', errorCode: -32603 });
    });

    it('leaves the gate of calls that name an entry to their admission, and unguarded methods alone', async () => {
      trail = new AuditTrail(new MemorySink(true), TRAIL_SETTINGS);
      await trail.start();
      const { dispatcher, received } = setup({}, trail);
      for (const method of ['tools/call', 'prompts/get', 'resources/read', 'tasks/get', 'tools/list'] as const) {
        await expect(
          send(dispatcher, 'request', request(1, method, { name: 'x', uri: 'file:///x' }), scopeOf()),
        ).resolves.toContain('"result"');
      }
      expect(received.map((r) => r.method)).toEqual([
        'tools/call',
        'prompts/get',
        'resources/read',
        'tasks/get',
        'tools/list',
      ]);
    });

    it("gates the extension's tasks/get (it hands out results) and not the 2025 one: the table guards it in the stateless era", async () => {
      trail = new AuditTrail(new MemorySink(true), TRAIL_SETTINGS);
      await trail.start();
      const { dispatcher, received, events } = setup({}, trail);
      const refused = await send(
        dispatcher,
        'request',
        request(6, 'tasks/get', { taskId: 't-1', _meta: ENVELOPE }),
        scopeOf('alice', null),
      );
      expect(JSON.parse(refused!).error.code).toBe(-32603);
      await expect(
        send(dispatcher, 'request', request(7, 'tasks/get', { taskId: 't-1' }), scopeOf()),
      ).resolves.toContain('"result"');
      expect(received.map((r) => [r.method, r.request.era])).toEqual([['tasks/get', 'session']]);
      expect(events.map((e) => e.outcome)).toEqual(['unavailable', 'ok']);
    });

    it('lets tasks/result through once the trail writes', async () => {
      trail = new AuditTrail(new MemorySink(false), TRAIL_SETTINGS);
      await trail.start();
      expect(trail.admits()).toBe(true);
      const { dispatcher, events } = setup({}, trail);
      await expect(send(dispatcher, 'request', request(5, 'tasks/result', { taskId: 't-1' }), scopeOf())).resolves.toBe(
        '{"jsonrpc":"2.0","id":5,"result":{"answered":"tasks/result"}}',
      );
      expect(events[0].outcome).toBe('ok');
    });
  });

  describe('notifications', () => {
    it('marks the session initialized on notifications/initialized, answering nothing and reporting nothing', async () => {
      const { dispatcher, received, events } = setup();
      const scope = scopeOf();
      expect(scope.session.initialized).toBe(false);
      await expect(
        send(dispatcher, 'notification', notification('notifications/initialized'), scope),
      ).resolves.toBeUndefined();
      expect(scope.session.initialized).toBe(true);
      expect(received).toHaveLength(0);
      expect(events).toHaveLength(0);
    });

    it('ignores notifications it does not know, even ones named like a request method', async () => {
      const { dispatcher, received, events } = setup();
      const scope = scopeOf();
      await expect(
        send(dispatcher, 'notification', notification('notifications/whatever', { x: 1 }), scope),
      ).resolves.toBeUndefined();
      await expect(send(dispatcher, 'notification', notification('tools/list'), scope)).resolves.toBeUndefined();
      expect(received).toHaveLength(0);
      expect(events).toHaveLength(0);
      expect(scope.session.initialized).toBe(false);
    });

    /** A tools/call handler that runs as a real cancellable call and ends only when aborted. */
    function cancellable() {
      const aborted: string[] = [];
      // Assigned once the dispatcher is built; read only later, by the handler the dispatcher calls.
      // eslint-disable-next-line prefer-const
      let callScope!: CallScope;
      const built = setup({
        'tools/call': (request, reply, note) =>
          callScope.run(
            admittedCall(request, { name: request.params.name as string } as RegisteredTool, {}, { reply, note }),
            (context) =>
              new Promise<{ value: string }>((resolve) => {
                context.signal.addEventListener('abort', () => {
                  aborted.push((context.signal.reason as Error).message);
                  resolve({ value: '{"content":[],"isError":true}' });
                });
              }),
          ),
      });
      callScope = built.callScope;
      return { ...built, aborted };
    }

    it('cancels the call in flight by id on a stateful session: no response is sent, the outcome is cancelled', async () => {
      const { dispatcher, events, aborted } = cancellable();
      const scope = scopeOf('alice', 'session-1');
      const answer = send(dispatcher, 'request', request(5, 'tools/call', { name: 'slow' }), scope);
      await settle();
      expect([...scope.session.inFlight.keys()]).toEqual([5]);

      // Another session using the same id, and another id on this session, cancel nothing.
      await send(
        dispatcher,
        'notification',
        notification('notifications/cancelled', { requestId: 5 }),
        scopeOf('alice', 'session-2'),
      );
      await send(dispatcher, 'notification', notification('notifications/cancelled', { requestId: '5' }), scope);
      await settle();
      expect(aborted).toEqual([]);

      await send(
        dispatcher,
        'notification',
        notification('notifications/cancelled', { requestId: 5, reason: 'user stopped' }),
        scopeOf('alice', 'session-1', scope.session),
      );
      await expect(answer).resolves.toBeUndefined();
      expect(aborted).toEqual(['user stopped']);
      expect(scope.session.inFlight.size).toBe(0);
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        method: 'tools/call',
        outcome: 'cancelled',
        errorCode: undefined,
        error: 'Cancelled by the client: user stopped',
      });
    });

    it('says "no reason given" for a cancellation without a reason, and cuts a long reason to 200 characters', async () => {
      const { dispatcher, aborted } = cancellable();
      const scope = scopeOf();
      const first = send(dispatcher, 'request', request(1, 'tools/call', { name: 'slow' }), scope);
      const second = send(dispatcher, 'request', request(2, 'tools/call', { name: 'slow' }), scope);
      await settle();
      await send(
        dispatcher,
        'notification',
        notification('notifications/cancelled', { requestId: 1, reason: '' }),
        scope,
      );
      await send(
        dispatcher,
        'notification',
        notification('notifications/cancelled', { requestId: 2, reason: 'x'.repeat(500) }),
        scope,
      );
      await Promise.all([first, second]);
      expect(aborted).toEqual(['no reason given', 'x'.repeat(200)]);
    });

    it('finds the call of a stateless request by principal and id, from a request of its own', async () => {
      const { dispatcher, events, aborted } = cancellable();
      const answer = send(dispatcher, 'request', request(5, 'tools/call', { name: 'slow' }), scopeOf('alice', null));
      await settle();

      // Each stateless POST has a session of its own: only the principal and the id tie them.
      await send(
        dispatcher,
        'notification',
        notification('notifications/cancelled', { requestId: 5, reason: 'not yours' }),
        scopeOf('bob', null),
      );
      await settle();
      expect(aborted).toEqual([]);

      await send(
        dispatcher,
        'notification',
        notification('notifications/cancelled', { requestId: 5, reason: 'stop' }),
        scopeOf('alice', null),
      );
      await expect(answer).resolves.toBeUndefined();
      expect(aborted).toEqual(['stop']);
      expect(events[0]).toMatchObject({ outcome: 'cancelled', error: 'Cancelled by the client: stop' });
    });

    it('ignores a cancellation without a usable requestId', async () => {
      const { dispatcher, aborted } = cancellable();
      const scope = scopeOf();
      const answer = send(dispatcher, 'request', request(1, 'tools/call', { name: 'slow' }), scope);
      await settle();
      for (const params of [undefined, {}, { requestId: null }, { requestId: { id: 1 } }]) {
        await send(dispatcher, 'notification', notification('notifications/cancelled', params), scope);
      }
      await settle();
      expect(aborted).toEqual([]);
      scope.session.inFlight.get(1)!.cancelByClient('cleanup');
      await expect(answer).resolves.toBeUndefined();
    });
  });

  describe('responses from the client', () => {
    it('settle the request a tool sent to the client, with its result or its error', async () => {
      const { dispatcher, events } = setup();
      const scope = scopeOf();
      const sent: { id: string; method: string }[] = [];
      const toClient = (message: string) => (sent.push(JSON.parse(message)), true);
      const roots = scope.session.clientRequests.send('roots/list', {}, toClient, 5_000, new AbortController().signal);
      const sampling = scope.session.clientRequests.send(
        'sampling/createMessage',
        {},
        toClient,
        5_000,
        new AbortController().signal,
      );
      expect(sent.map((m) => [m.id, m.method])).toEqual([
        ['srv-1', 'roots/list'],
        ['srv-2', 'sampling/createMessage'],
      ]);

      await expect(
        send(dispatcher, 'response', { jsonrpc: '2.0', id: 'srv-1', result: { roots: [] } }, scope),
      ).resolves.toBeUndefined();
      await expect(roots).resolves.toEqual({ roots: [] });
      await send(
        dispatcher,
        'response',
        { jsonrpc: '2.0', id: 'srv-2', error: { code: -1, message: 'user declined' } },
        scope,
      );
      await expect(sampling).rejects.toThrow(McpClientRequestError);
      await expect(sampling).rejects.toMatchObject({
        message: 'The client refused sampling/createMessage: user declined',
        reason: 'refused',
      });
      expect(events).toHaveLength(0);
    });

    it('warns about a response nothing waits for, and answers nothing', async () => {
      const { dispatcher } = setup();
      await expect(
        send(dispatcher, 'response', { jsonrpc: '2.0', id: 'srv-99', result: {} }, scopeOf()),
      ).resolves.toBeUndefined();
      expect(Logger.prototype.warn).toHaveBeenCalledWith('Ignored a response to unknown request "srv-99"');
    });
  });
});
