import { context, propagation, trace } from '@opentelemetry/api';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { startTracing, traceExportersFrom, tracerProvider } from './tracing';
import { StderrSpanExporter, tracingResource } from './tracing-sdk';

/** The support desk's OpenTelemetry set-up, driven by the standard OTEL_* variables. */
describe('src/tracing.ts', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
    trace.disable();
    context.disable();
    propagation.disable();
  });

  it('registers nothing unless an OTEL_* variable asks for it', () => {
    // The test process sets none: importing the module registered no provider.
    expect(tracerProvider).toBeUndefined();
    expect(traceExportersFrom({})).toEqual([]);
    expect(startTracing({})).toBeUndefined();
  });

  it('chooses exporters from OTEL_TRACES_EXPORTER, else OTLP when an endpoint is set', () => {
    expect(traceExportersFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toEqual(['otlp']);
    expect(traceExportersFrom({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toEqual([
      'otlp',
    ]);
    expect(traceExportersFrom({ OTEL_TRACES_EXPORTER: 'console' })).toEqual(['console']);
    expect(traceExportersFrom({ OTEL_TRACES_EXPORTER: 'otlp, Console,otlp' })).toEqual(['otlp', 'console']);
    expect(
      traceExportersFrom({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }),
    ).toEqual([]);
    expect(traceExportersFrom({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'console' })).toEqual([]);
    expect(() => traceExportersFrom({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(
      'OTEL_TRACES_EXPORTER="zipkin": unknown exporter zipkin; use otlp, console or none (comma-separated)',
    );
  });

  it('names the service support-desk unless OTEL_SERVICE_NAME says otherwise', () => {
    delete process.env.OTEL_SERVICE_NAME;
    delete process.env.OTEL_RESOURCE_ATTRIBUTES;
    expect(tracingResource().attributes[ATTR_SERVICE_NAME]).toBe('support-desk');
    process.env.OTEL_SERVICE_NAME = 'desk-eu-1';
    expect(tracingResource().attributes[ATTR_SERVICE_NAME]).toBe('desk-eu-1');
  });

  it('with OTEL_TRACES_EXPORTER=console, registers a provider that writes each span as a JSON line on stderr', async () => {
    const lines: string[] = [];
    const write = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => (lines.push(String(chunk)), true));
    const stdout = jest.spyOn(process.stdout, 'write');
    try {
      const provider = startTracing({ OTEL_TRACES_EXPORTER: 'console' })!;
      expect(provider).toBeDefined();
      // Registered with W3C propagation, as the host's tracing expects.
      expect(propagation.fields()).toEqual(expect.arrayContaining(['traceparent', 'tracestate', 'baggage']));
      trace
        .getTracer('test')
        .startSpan('tools/call add', { attributes: { 'gen_ai.tool.name': 'add' } })
        .end();
      await provider.shutdown();
      const spans = lines.map(
        (line) => JSON.parse(line) as { name: string; traceId: string; attributes: Record<string, unknown> },
      );
      expect(spans).toEqual([
        expect.objectContaining({
          name: 'tools/call add',
          traceId: expect.stringMatching(/^[\da-f]{32}$/),
          attributes: { 'gen_ai.tool.name': 'add' },
        }),
      ]);
      expect(stdout).not.toHaveBeenCalled();
    } finally {
      write.mockRestore();
      stdout.mockRestore();
    }
  });

  it('reports success for every batch it prints', () => {
    const done = jest.fn();
    const write = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    new StderrSpanExporter().export([], done);
    write.mockRestore();
    expect(done).toHaveBeenCalledWith({ code: 0 });
  });
});
