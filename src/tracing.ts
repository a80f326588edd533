// OpenTelemetry for the support desk: imported first by main.ts and main.stdio.ts, so the SDK is
// registered before anything asks the API for a tracer (the usual OpenTelemetry set-up; the one
// side effect at import in this app, and it does nothing unless an OTEL_* variable asks for it:
// the SDK itself, tracing-sdk.ts, is required only then).
import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

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

/**
 * Registers a `NodeTracerProvider` (W3C trace-context and baggage propagators, async context) that
 * exports what the environment asks for, or does nothing when it asks for nothing. The OTLP
 * exporter reads its own variables (`OTEL_EXPORTER_OTLP_ENDPOINT`, `…_HEADERS`, `…_TIMEOUT`, …)
 * and the provider its sampler (`OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`).
 */
export function startTracing(env: NodeJS.ProcessEnv = process.env): NodeTracerProvider | undefined {
  const exporters = traceExportersFrom(env).filter((name) => name !== 'none');
  if (exporters.length === 0) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { registerTracing } = require('./tracing-sdk') as typeof import('./tracing-sdk');
  return registerTracing(exporters);
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
