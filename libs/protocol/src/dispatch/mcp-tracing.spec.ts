import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { PromptRegistry, ToolRegistry } from '#libs/catalog';
import { callRequest, principal, type RequestOrigin } from '../testing/protocol-testing';
import type { McpSession } from '../sessions/mcp-session';
import { McpTracing } from './mcp-tracing';
import { traitsOf } from '../wire/mcp-method.table';
import { RequestNote } from '../events/request-note';
import { parseTraceparent } from './trace-context';

const CLIENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';
const HTTP_TRACE = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const HTTP_SPAN = 'bbbbbbbbbbbbbbbb';
const traceparent = (traceId: string, spanId: string) => `00-${traceId}-${spanId}-01`;

const tools = { has: (name: string) => name === 'add' } as unknown as ToolRegistry;
const prompts = { has: (name: string) => name === 'triage' } as unknown as PromptRegistry;

function scope(
  headers: Record<string, string> = {},
  transport: 'http' | 'stdio' = 'http',
  sessionId: string | null = 'session-1',
): RequestOrigin {
  const session = { id: sessionId ?? undefined, protocolVersion: '2025-11-25' } as McpSession;
  return {
    session,
    transport,
    principal: principal('ops'),
    headers,
    remoteAddress: transport === 'http' ? '127.0.0.1' : undefined,
  };
}

const note = (method: string) =>
  new RequestNote(method, traitsOf(method), 'http', 'ops', 'session-1', undefined, '127.0.0.1');

describe('parseTraceparent', () => {
  it('reads W3C traceparent values and refuses malformed ones', () => {
    expect(parseTraceparent(traceparent(CLIENT_TRACE, CLIENT_SPAN))).toEqual({
      traceId: CLIENT_TRACE,
      spanId: CLIENT_SPAN,
      traceFlags: 1,
    });
    expect(parseTraceparent(`01-${CLIENT_TRACE}-${CLIENT_SPAN}-00-later-field`)).toEqual({
      traceId: CLIENT_TRACE,
      spanId: CLIENT_SPAN,
      traceFlags: 0,
    });
    for (const bad of [
      `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01-extra`,
      `ff-${CLIENT_TRACE}-${CLIENT_SPAN}-01`,
      `00-${'0'.repeat(32)}-${CLIENT_SPAN}-01`,
      `00-${CLIENT_TRACE}-${'0'.repeat(16)}-01`,
      `00-${CLIENT_TRACE.toUpperCase()}-${CLIENT_SPAN}-01`,
      `00-${CLIENT_TRACE}-${CLIENT_SPAN}`,
      42,
      undefined,
    ]) {
      expect(parseTraceparent(bad)).toBeUndefined();
    }
  });
});

describe('McpTracing without an OpenTelemetry SDK', () => {
  const tracing = new McpTracing(tools, prompts);

  it("just runs the work, and still gives the audit trail the caller's trace id", async () => {
    expect(tracing.enabled).toBe(false);
    const fromMeta = note('tools/call');
    await expect(
      tracing.run(
        fromMeta,
        callRequest(
          'tools/call',
          { name: 'add', _meta: { traceparent: traceparent(CLIENT_TRACE, CLIENT_SPAN) } },
          scope({ traceparent: traceparent(HTTP_TRACE, HTTP_SPAN) }),
          1,
        ),
        async () => 'done',
      ),
    ).resolves.toBe('done');
    expect(fromMeta.traceId).toBe(CLIENT_TRACE);

    const fromHeader = note('tools/call');
    await tracing.run(
      fromHeader,
      callRequest('tools/call', { name: 'add' }, scope({ traceparent: traceparent(HTTP_TRACE, HTTP_SPAN) }), 2),
      async () => 'done',
    );
    expect(fromHeader.traceId).toBe(HTTP_TRACE);

    const none = note('tools/call');
    await tracing.run(
      none,
      callRequest('tools/call', { name: 'add', _meta: { traceparent: 'garbage' } }, scope(), 3),
      async () => 'done',
    );
    expect(none.traceId).toBeUndefined();
  });
});

describe('McpTracing with an SDK registered', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: McpTracing;

  afterEach(() => {
    exporter.reset();
    trace.disable();
    context.disable();
    propagation.disable();
  });

  const spans = (): ReadableSpan[] => exporter.getFinishedSpans();

  describe('as trace.setGlobalTracerProvider() leaves it (no propagator, no context manager)', () => {
    beforeEach(() => {
      trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
      tracing = new McpTracing(tools, prompts);
    });

    it("makes a SERVER span named after the tool, child of the client's _meta context, linked to the HTTP one", async () => {
      const n = note('tools/call');
      const params = {
        name: 'add',
        arguments: { a: 1 },
        _meta: { traceparent: traceparent(CLIENT_TRACE, CLIENT_SPAN), tracestate: 'rojo=00f067aa0ba902b7' },
      };
      expect(tracing.enabled).toBe(true);
      await tracing.run(
        n,
        callRequest('tools/call', params, scope({ traceparent: traceparent(HTTP_TRACE, HTTP_SPAN) }), 7),
        async () => 'ok',
      );
      const [span] = spans();
      expect(span.name).toBe('tools/call add');
      expect(span.kind).toBe(SpanKind.SERVER);
      expect(span.spanContext().traceId).toBe(CLIENT_TRACE);
      expect(span.parentSpanContext).toMatchObject({ traceId: CLIENT_TRACE, spanId: CLIENT_SPAN, isRemote: true });
      expect(span.parentSpanContext?.traceState?.get('rojo')).toBe('00f067aa0ba902b7');
      expect(span.links.map((link) => link.context.traceId)).toEqual([HTTP_TRACE]);
      expect(span.attributes).toEqual({
        'mcp.method.name': 'tools/call',
        'jsonrpc.request.id': '7',
        'mcp.protocol.version': '2025-11-25',
        'mcp.session.id': 'session-1',
        'network.transport': 'tcp',
        'network.protocol.name': 'http',
        'client.address': '127.0.0.1',
        'gen_ai.tool.name': 'add',
        'gen_ai.operation.name': 'execute_tool',
      });
      expect(span.status.code).toBe(SpanStatusCode.UNSET);
      expect(n.traceId).toBe(CLIENT_TRACE);
    });

    it('takes the HTTP traceparent header as parent when _meta has none', async () => {
      const n = note('prompts/get');
      await tracing.run(
        n,
        callRequest(
          'tools/call',
          { name: 'triage' },
          scope({ traceparent: traceparent(HTTP_TRACE, HTTP_SPAN) }),
          'p-1',
        ),
        async () => 'ok',
      );
      const [span] = spans();
      expect(span.name).toBe('prompts/get triage');
      expect(span.parentSpanContext).toMatchObject({ traceId: HTTP_TRACE, spanId: HTTP_SPAN });
      expect(span.links).toEqual([]);
      expect(span.attributes['gen_ai.prompt.name']).toBe('triage');
      expect(span.attributes['gen_ai.operation.name']).toBeUndefined();
      expect(n.traceId).toBe(HTTP_TRACE);
    });

    it('starts a new trace without a remote parent; keeps unknown names out of span names', async () => {
      const n = note('tools/call');
      await tracing.run(
        n,
        callRequest('tools/call', { name: 'no_such_tool' }, scope({}, 'stdio', null), 1),
        async () => 'ok',
      );
      const [span] = spans();
      expect(span.name).toBe('tools/call');
      expect(span.parentSpanContext).toBeUndefined();
      expect(span.attributes).toMatchObject({ 'gen_ai.tool.name': 'no_such_tool', 'network.transport': 'pipe' });
      expect(span.attributes['mcp.session.id']).toBeUndefined();
      expect(span.attributes['network.protocol.name']).toBeUndefined();
      expect(n.traceId).toBe(span.spanContext().traceId);
      expect(n.traceId).toMatch(/^[\da-f]{32}$/);
    });

    it('records a JSON-RPC error as error.type and rpc.response.status_code, a failed result as its outcome', async () => {
      const refused = note('tools/call');
      await tracing.run(refused, callRequest('tools/call', { name: 'add' }, scope(), 1), async () => {
        refused.fail('invalid', -32602, 'Unknown tool: add');
        return 'error response';
      });
      const toolError = note('tools/call');
      await tracing.run(toolError, callRequest('tools/call', { name: 'add' }, scope(), 2), async () => {
        toolError.fail('tool_error', undefined, undefined);
        return 'isError result';
      });
      const read = note('resources/read');
      await tracing.run(read, callRequest('tools/call', { uri: 'kb://articles/a' }, scope(), 3), async () => 'ok');
      const [first, second, third] = spans();
      expect(first.attributes).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602' });
      expect(first.status).toEqual({ code: SpanStatusCode.ERROR, message: 'Unknown tool: add' });
      expect(second.attributes['error.type']).toBe('tool_error');
      expect(second.attributes['rpc.response.status_code']).toBeUndefined();
      expect(second.status.code).toBe(SpanStatusCode.ERROR);
      expect(third.name).toBe('resources/read');
      expect(third.attributes['mcp.resource.uri']).toBe('kb://articles/a');
      expect(third.attributes['error.type']).toBeUndefined();
    });

    it('ends the span with the exception when the work throws', async () => {
      await expect(
        tracing.run(note('ping'), callRequest('tools/call', {}, scope(), 1), () =>
          Promise.reject(new RangeError('boom')),
        ),
      ).rejects.toThrow('boom');
      const [span] = spans();
      expect(span.attributes['error.type']).toBe('RangeError');
      expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'boom' });
      expect(span.events.map((event) => event.name)).toEqual(['exception']);
    });
  });

  describe('as NodeTracerProvider.register() sets it up (W3C propagators, async context)', () => {
    beforeEach(() => {
      new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).register();
      tracing = new McpTracing(tools, prompts);
    });

    it('extracts through the registered propagator and makes the span active while the work runs', async () => {
      const n = note('tools/call');
      let active: string | undefined;
      await tracing.run(
        n,
        callRequest(
          'tools/call',
          { name: 'add', _meta: { traceparent: traceparent(CLIENT_TRACE, CLIENT_SPAN) } },
          scope(),
          1,
        ),
        async () => {
          await new Promise((resolve) => setTimeout(resolve, 1));
          active = trace.getActiveSpan()?.spanContext().spanId;
          // The tool's own spans are children of the request's.
          trace.getTracer('tool').startSpan('inner').end();
          return 'ok';
        },
      );
      const [inner, server] = spans();
      expect(server.name).toBe('tools/call add');
      expect(active).toBe(server.spanContext().spanId);
      expect(inner.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
      expect(server.parentSpanContext?.spanId).toBe(CLIENT_SPAN);
      expect(n.traceId).toBe(CLIENT_TRACE);
    });
  });
});
