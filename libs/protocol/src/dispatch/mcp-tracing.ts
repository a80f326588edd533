import { Injectable } from '@nestjs/common';
import {
  context,
  createTraceState,
  propagation,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type TextMapGetter,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { PromptRegistry, ToolRegistry } from '#libs/catalog';
import { traitsOf } from '../wire/mcp-method.table';
import type { McpRequest } from '../requests/mcp-request';
import type { RequestNote } from '../events/request-note';
import { metaOf, parseTraceparent, traceIdOf } from './trace-context';

/** The instrumentation scope the host's spans are reported under. */
export const MCP_TRACER_NAME = 'nest-mcp-host';

/**
 * The provider the API hands out while none is registered. `ProxyTracerProvider` is deprecated
 * for removal in API 2.0; until then it is the only public way to tell "no SDK" apart cheaply.
 */
const NOOP_PROVIDER: TracerProvider = new ProxyTracerProvider().getDelegate();

/** Reads W3C keys from `params._meta` (string values only). */
const META_GETTER: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

/** Reads HTTP request headers (Node lower-cases their names). */
const HEADER_GETTER: TextMapGetter<Readonly<Record<string, string | string[] | undefined>>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};

/**
 * OpenTelemetry tracing of MCP requests, after the semantic conventions for MCP servers
 * (`mcp.method.name`, `gen_ai.tool.name`, `jsonrpc.request.id`, …): one `SERVER` span per request,
 * named `{method} {tool or prompt}`, whose parent is the W3C trace context the client put in
 * `params._meta` (`traceparent`, `tracestate`), else the HTTP request's `traceparent` header. When
 * both are present the header's context becomes a link. The span's trace id goes into the request's
 * note, so the audit record carries it.
 *
 * Uses `@opentelemetry/api` only: the application registers an SDK (see `src/tracing.ts`). Without
 * one, a request costs a provider check and, when the client sent a `traceparent`, one regular
 * expression (the audit record still gets the caller's trace id).
 *
 * @example
 * ```ts
 * // The dispatcher, around each request:
 * return tracing.run(note, request, () => this.answer(request, reply, note));
 * ```
 */
@Injectable()
export class McpTracing {
  private provider: TracerProvider = NOOP_PROVIDER;
  private tracer: Tracer | undefined;

  constructor(
    private readonly tools: ToolRegistry,
    private readonly prompts: PromptRegistry,
  ) {}

  /** `true` when an OpenTelemetry SDK is registered, so requests get spans. */
  get enabled(): boolean {
    return this.activeTracer() !== undefined;
  }

  /**
   * Runs `work` (the answer to one request) inside a `SERVER` span, and sets the span's status
   * from `note` once it is done. Without a registered tracer provider it just runs `work`.
   */
  run<T>(note: RequestNote, request: McpRequest, work: () => Promise<T>): Promise<T> {
    const tracer = this.activeTracer();
    if (tracer) return this.traced(tracer, note, request, work);
    note.traceId = traceIdOf(metaOf(request.params)?.traceparent) ?? traceIdOf(request.headers.traceparent);
    return work();
  }

  private async traced<T>(tracer: Tracer, note: RequestNote, request: McpRequest, work: () => Promise<T>): Promise<T> {
    const params = request.params;
    const meta = metaOf(params);
    const fromMeta = meta && remoteContext(meta, META_GETTER);
    const fromHeader =
      request.headers.traceparent !== undefined ? remoteContext(request.headers, HEADER_GETTER) : undefined;
    const parent = fromMeta ?? fromHeader ?? context.active();
    // The MCP message's context is the parent; the transport's, when it differs, is linked.
    const links: Link[] | undefined =
      fromMeta && fromHeader ? [{ context: trace.getSpanContext(fromHeader)! }] : undefined;
    const method = note.method ?? 'unknown';
    const span = tracer.startSpan(
      this.spanName(method, params),
      { kind: SpanKind.SERVER, attributes: requestAttributes(method, request), links },
      parent,
    );
    note.traceId = span.spanContext().traceId;
    try {
      return await context.with(trace.setSpan(parent, span), work);
    } catch (error) {
      span.recordException(error as Error);
      span.setAttribute('error.type', (error as Error)?.constructor?.name || '_OTHER');
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message });
      throw error;
    } finally {
      endWithOutcome(span, note);
    }
  }

  /** `{method} {name}` for a tool or prompt the catalog has; just the method otherwise (low cardinality). */
  private spanName(method: string, params: Record<string, unknown> | undefined): string {
    const kind = traitsOf(method)?.names?.kind;
    const name = params?.name;
    if ((kind !== 'tool' && kind !== 'prompt') || typeof name !== 'string') return method;
    return (kind === 'tool' ? this.tools.has(name) : this.prompts.has(name)) ? `${method} ${name}` : method;
  }

  /** The registered SDK's tracer, or `undefined` while the API would hand out no-op spans. */
  private activeTracer(): Tracer | undefined {
    const global = trace.getTracerProvider();
    const provider = global instanceof ProxyTracerProvider ? global.getDelegate() : global;
    if (provider === NOOP_PROVIDER) return undefined;
    if (provider !== this.provider) {
      this.provider = provider;
      this.tracer = provider.getTracer(MCP_TRACER_NAME);
    }
    return this.tracer;
  }
}

/**
 * The remote context `carrier` holds: through the application's propagators (W3C, B3, baggage, …)
 * when they find one, else read as W3C Trace Context directly (an SDK registered without
 * propagators, as `trace.setGlobalTracerProvider()` leaves it).
 */
function remoteContext<C>(carrier: C, getter: TextMapGetter<C>): Context | undefined {
  const extracted = propagation.extract(ROOT_CONTEXT, carrier, getter);
  if (trace.getSpanContext(extracted)) return extracted;
  const parent = parseTraceparent(getter.get(carrier, 'traceparent'));
  if (!parent) return undefined;
  const state = getter.get(carrier, 'tracestate');
  const traceState =
    typeof state === 'string' && state
      ? createTraceState(state)
      : Array.isArray(state) && state.length > 0
        ? createTraceState(state.join(','))
        : undefined;
  return trace.setSpanContext(extracted, { ...parent, isRemote: true, traceState });
}

/** The span's attributes known when the request arrives (MCP semantic conventions). */
function requestAttributes(method: string, request: McpRequest): Attributes {
  const { session, params } = request;
  const attributes: Attributes = {
    'mcp.method.name': method,
    'jsonrpc.request.id': String(request.id),
    'mcp.protocol.version': session.protocolVersion,
    'network.transport': request.transport === 'stdio' ? 'pipe' : 'tcp',
  };
  if (session.id !== undefined) attributes['mcp.session.id'] = session.id;
  if (request.transport === 'http') attributes['network.protocol.name'] = 'http';
  if (request.remoteAddress !== undefined) attributes['client.address'] = request.remoteAddress;
  const name = params?.name;
  const kind = traitsOf(method)?.names?.kind;
  if (kind === 'tool' && typeof name === 'string') {
    attributes['gen_ai.tool.name'] = name;
    attributes['gen_ai.operation.name'] = 'execute_tool';
  } else if (kind === 'prompt' && typeof name === 'string') {
    attributes['gen_ai.prompt.name'] = name;
  } else if (kind === 'resource' && typeof params?.uri === 'string') {
    attributes['mcp.resource.uri'] = params.uri;
  }
  return attributes;
}

/**
 * Ends the span with the request's outcome: a JSON-RPC error sets `error.type` and
 * `rpc.response.status_code` to its code; a result that failed (`isError`, a time-out, …) sets
 * `error.type` to the outcome (`tool_error`, `timeout`, …). Either way the status is `ERROR`.
 */
function endWithOutcome(span: Span, note: RequestNote): void {
  if (note.outcome !== 'ok') {
    const code = note.errorCode;
    if (code !== undefined) span.setAttribute('rpc.response.status_code', String(code));
    span.setAttribute('error.type', code !== undefined ? String(code) : note.outcome);
    span.setStatus({ code: SpanStatusCode.ERROR, message: note.error });
  }
  span.end();
}
