import { isSpanContextValid, trace } from '@opentelemetry/api';
import type { McpCallContext } from '#libs/core';

/**
 * The W3C trace context to send upstream in `params._meta`, so that the upstream's spans join
 * the caller's trace: the active span's (the host's span of this call, when tracing is on), else
 * what the client sent (`_meta.traceparent` / `tracestate`, or the `traceparent` header).
 */
export function traceMetaOf(context: McpCallContext): { traceparent?: string; tracestate?: string } {
  const span = trace.getActiveSpan()?.spanContext();
  if (span && isSpanContextValid(span)) {
    const flags = (span.traceFlags & 0xff).toString(16).padStart(2, '0');
    const state = span.traceState?.serialize();
    return { traceparent: `00-${span.traceId}-${span.spanId}-${flags}`, ...(state && { tracestate: state }) };
  }
  const sent = context.meta.traceparent ?? context.headers.traceparent;
  if (typeof sent !== 'string') return {};
  const state = context.meta.tracestate ?? context.headers.tracestate;
  return { traceparent: sent, ...(typeof state === 'string' && { tracestate: state }) };
}
