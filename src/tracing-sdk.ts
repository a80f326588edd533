// The OpenTelemetry SDK's part of the desk's tracing: required by tracing.ts only when an OTEL_*
// variable asks for an exporter, so a desk (or a CLI command) without one loads none of the SDK.
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

/** `service.name=support-desk`, overridden by `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`. */
export function tracingResource(): Resource {
  return defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: DEFAULT_SERVICE_NAME }))
    .merge(detectResources({ detectors: [envDetector] }));
}

/** A registered `NodeTracerProvider` exporting to `exporters` (see `startTracing`). */
export function registerTracing(exporters: readonly ('otlp' | 'console')[]): NodeTracerProvider {
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
