// OpenTelemetry for the support desk: imported first by main.ts and main.stdio.ts, so the SDK is
// registered before anything asks the API for a tracer (the usual OpenTelemetry set-up; the one
// side effect at import in this app, and it does nothing unless an OTEL_* variable asks for it).
import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { ExportResultCode, hrTimeToMicroseconds, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import {
  defaultResource,
  detectResources,
  envDetector,
  resourceFromAttributes,
  type Resource,
} from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  NodeTracerProvider,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

/** `service.name` unless `OTEL_SERVICE_NAME` (or `OTEL_RESOURCE_ATTRIBUTES`) says otherwise. */
export const DEFAULT_SERVICE_NAME = 'support-desk';
const EXPORTERS = ['otlp', 'console', 'none'] as const;
type ExporterName = (typeof EXPORTERS)[number];

/**
 * The trace exporters the environment asks for: `OTEL_TRACES_EXPORTER` (comma-separated `otlp`,
 * `console`, `none`) when set, else `otlp` when `OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` is set, else none. `OTEL_SDK_DISABLED=true` turns it all off.
 * @throws Error naming the variable when it holds an unknown exporter
 */
export function traceExportersFrom(env: NodeJS.ProcessEnv): ExporterName[] {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return [];
  const requested = env.OTEL_TRACES_EXPORTER?.trim();
  if (requested) {
    const names = requested
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean);
    const unknown = names.filter((name) => !EXPORTERS.includes(name as ExporterName));
    if (unknown.length > 0)
      throw new Error(
        `OTEL_TRACES_EXPORTER="${requested}": unknown exporter ${unknown.join(', ')}; use otlp, console or none (comma-separated)`,
      );
    return names.includes('none') ? [] : [...new Set(names as ExporterName[])];
  }
  return env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() ? ['otlp'] : [];
}

/** `service.name=support-desk`, overridden by `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`. */
export function tracingResource(): Resource {
  return defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: DEFAULT_SERVICE_NAME }))
    .merge(detectResources({ detectors: [envDetector] }));
}

/**
 * Registers a `NodeTracerProvider` (W3C trace-context and baggage propagators, async context) that
 * exports what the environment asks for, or does nothing when it asks for nothing. The OTLP
 * exporter reads its own variables (`OTEL_EXPORTER_OTLP_ENDPOINT`, `…_HEADERS`, `…_TIMEOUT`, …)
 * and the provider its sampler (`OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`).
 */
export function startTracing(env: NodeJS.ProcessEnv = process.env): NodeTracerProvider | undefined {
  const exporters = traceExportersFrom(env);
  if (exporters.length === 0) return undefined;
  const spanProcessors: SpanProcessor[] = exporters.map((name) =>
    // Batches to the collector; the console gets each span as it ends.
    name === 'otlp'
      ? new BatchSpanProcessor(new OTLPTraceExporter())
      : new SimpleSpanProcessor(new StderrSpanExporter()),
  );
  const provider = new NodeTracerProvider({ resource: tracingResource(), spanProcessors });
  provider.register();
  return provider;
}

/**
 * `OTEL_TRACES_EXPORTER=console`: one JSON line per span on stderr. Not stdout, which carries the
 * protocol when the desk serves stdio (the SDK's `ConsoleSpanExporter` prints there).
 */
export class StderrSpanExporter implements SpanExporter {
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    for (const span of spans) {
      const context = span.spanContext();
      const line = {
        traceId: context.traceId,
        spanId: context.spanId,
        parentSpanId: span.parentSpanContext?.spanId,
        name: span.name,
        kind: span.kind,
        startUs: hrTimeToMicroseconds(span.startTime),
        durationUs: hrTimeToMicroseconds(span.duration),
        attributes: span.attributes,
        status: span.status,
        events: span.events.map((event) => ({ name: event.name, attributes: event.attributes })),
        links: span.links.map((link) => ({ traceId: link.context.traceId, spanId: link.context.spanId })),
      };
      process.stderr.write(`${JSON.stringify(line)}\n`);
    }
    done({ code: ExportResultCode.SUCCESS });
  }

  async shutdown(): Promise<void> {}
}

/** The provider this process registered, if any. */
export const tracerProvider = startTracing();

/** Exports the spans still buffered when the application shuts down. */
@Injectable()
export class TracingShutdown implements OnApplicationShutdown {
  async onApplicationShutdown(): Promise<void> {
    await tracerProvider?.shutdown();
  }
}
