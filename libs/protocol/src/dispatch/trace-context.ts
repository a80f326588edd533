import { isValidSpanId, isValidTraceId, type SpanContext } from '@opentelemetry/api';

/** `version-traceid-parentid-flags` (W3C Trace Context, level 1); later versions may append fields. */
const TRACEPARENT = /^([\da-f]{2})-([\da-f]{32})-([\da-f]{16})-([\da-f]{2})(-.*)?$/;

/**
 * The span context a W3C `traceparent` value names, or `undefined` when it is not a valid one
 * (wrong shape, version `ff`, all-zero ids, or extra fields on version `00`).
 */
export function parseTraceparent(value: unknown): Pick<SpanContext, 'traceId' | 'spanId' | 'traceFlags'> | undefined {
  if (typeof value !== 'string') return undefined;
  const match = TRACEPARENT.exec(value.trim());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (!isValidTraceId(traceId) || !isValidSpanId(spanId)) return undefined;
  return { traceId, spanId, traceFlags: parseInt(flags, 16) };
}

/** Just the trace id of a `traceparent` value (for the audit trail when no tracer is installed). */
export function traceIdOf(value: unknown): string | undefined {
  return parseTraceparent(value)?.traceId;
}

/** `params._meta` of a request, when it is an object. */
export function metaOf(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  const meta = params?._meta;
  return typeof meta === 'object' && meta !== null && !Array.isArray(meta)
    ? (meta as Record<string, unknown>)
    : undefined;
}
