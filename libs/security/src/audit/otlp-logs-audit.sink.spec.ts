import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AuditTrail } from './audit-trail';
import { batchBytesOf, verifyChain } from './audit-chain';
import type { AuditRecord } from './audit-record';
import { OtlpLogsAuditSink } from './otlp-logs-audit.sink';

describe('OtlpLogsAuditSink', () => {
  it('exports each record as an OTLP log record whose body is its line, with its attributes', async () => {
    const bodies: { headers: IncomingMessage['headers']; body: string }[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        bodies.push({ headers: req.headers, body });
        res.writeHead(bodies.length === 1 ? 503 : 200).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/logs`;
    const sink = new OtlpLogsAuditSink({ url, serviceName: 'desk', headers: { 'x-api-key': 'k' } });
    const stored: AuditRecord[] = [];
    const trail = new AuditTrail(
      { name: 'memory', append: async (records) => void stored.push(...records) },
      {
        policy: 'fail-closed',
        bufferSize: 100,
        flushIntervalMs: 2,
        batchSize: 10,
        chain: 'otlp',
        recentSize: 10,
        digestKey: undefined,
        spoolFile: undefined,
        refusalWindowMs: 60_000,
      },
    );
    await trail.start();
    for (const outcome of ['ok', 'denied'] as const)
      trail.record({
        startedAt: Date.now(),
        principal: 'ada',
        transport: 'http',
        method: 'tools/call',
        target: 't',
        outcome,
        latencyMs: 1,
      });
    await trail.flush();
    const records = stored.slice();
    await expect(sink.append(records)).rejects.toThrow(/answered 503/);
    await sink.append(records);
    const { headers, body } = bodies[1];
    expect(headers).toMatchObject({ 'content-type': 'application/json', 'x-api-key': 'k' });
    const exported = JSON.parse(body) as {
      resourceLogs: {
        resource: unknown;
        scopeLogs: {
          logRecords: { body: { stringValue: string }; severityText: string; attributes: { key: string }[] }[];
        }[];
      }[];
    };
    const logRecords = exported.resourceLogs[0].scopeLogs[0].logRecords;
    expect(logRecords.map((record) => record.severityText)).toEqual(['INFO', 'WARN']);
    expect(logRecords[1].attributes.map((attribute) => attribute.key)).toEqual([
      'mcp.audit.chain',
      'mcp.audit.seq',
      'mcp.audit.outcome',
      'mcp.method',
      'mcp.target',
      'enduser.id',
    ]);
    // The bodies are the lines as stored: the chain verifies in what the collector kept.
    expect(logRecords.map((record) => `${record.body.stringValue}\n`).join('')).toBe(batchBytesOf(records).toString());
    expect(await verifyChain(logRecords.map((record) => JSON.parse(record.body.stringValue) as AuditRecord))).toEqual({
      ok: true,
      count: 2,
      chains: 1,
    });
    await trail.close(100);
    server.close();
  });

  it('refuses plain http off loopback and a short timeout, every problem at once', () => {
    expect(() => new OtlpLogsAuditSink({ url: 'http://collector.example/v1/logs', timeoutMs: 0 })).toThrow(
      'Invalid OtlpLogsAuditSink options:\n  - url: records would cross the network unencrypted; use https, or set allowHttp: true on a trusted network\n  - timeoutMs: give a positive integer',
    );
  });
});
