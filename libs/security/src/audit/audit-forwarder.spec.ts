import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { batchBytesOf, verifyChain } from './audit-chain';
import { AuditForwarder, type AuditForwarderSettings } from './audit-forwarder';
import type { AuditEntry, AuditRecord } from './audit-record';
import type { AuditSink } from './audit-sink';
import { AuditTrail } from './audit-trail';

/** A SIEM kept in memory: it can be down, and keeps every batch as it came (repeats included). */
class MemorySiem implements AuditSink {
  readonly batches: string[][] = [];
  down = false;
  constructor(readonly name: string) {}
  append(records: readonly AuditRecord[]): Promise<void> {
    if (this.down) return Promise.reject(new Error(`${this.name} is down`));
    this.batches.push(batchBytesOf(records).toString('utf8').trim().split('\n'));
    return Promise.resolve();
  }
  get lines(): string[] {
    return this.batches.flat();
  }
}

/** The trail's own sink: keeps the lines the trail made. */
class MemorySink implements AuditSink {
  readonly name = 'memory';
  readonly lines: string[] = [];
  append(records: readonly AuditRecord[]): Promise<void> {
    this.lines.push(...batchBytesOf(records).toString('utf8').trim().split('\n'));
    return Promise.resolve();
  }
}

const entry = (n: number): AuditEntry => ({
  startedAt: Date.now(),
  principal: 'alice',
  transport: 'http',
  method: 'tools/call',
  target: `tool-${n}`,
  arguments: { n, note: 'ünïcode' },
  outcome: 'ok',
  latencyMs: 1,
});

const trailSettings = {
  policy: 'fail-closed' as const,
  bufferSize: 1_000,
  flushIntervalMs: 2,
  batchSize: 7,
  chain: 'fw',
  recentSize: 10,
  digestKey: undefined,
  spoolFile: undefined,
  refusalWindowMs: 60_000,
};

async function setUp(names: string[]) {
  const dir = await mkdtemp(join(tmpdir(), 'audit-forward-'));
  const settings = (name: string): AuditForwarderSettings => ({
    batchSize: 5,
    spoolFile: join(dir, `${name}.forward.jsonl`),
    retryDelayMs: 5,
    maxRetryDelayMs: 20,
  });
  const siems = names.map((name) => new MemorySiem(name));
  const forwarders = siems.map((siem) => new AuditForwarder(siem, settings(siem.name)));
  const sink = new MemorySink();
  const trail = new AuditTrail(sink, trailSettings, forwarders);
  await trail.start();
  return { dir, siems, forwarders, sink, trail, settings };
}

const until = async (condition: () => boolean, ms = 5_000) => {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

describe('AuditForwarder', () => {
  it('delivers every stored record to each sink in chain order, the lines as the trail stored them', async () => {
    const { siems, sink, trail } = await setUp(['syslog', 'webhook']);
    for (let n = 1; n <= 23; n++) trail.record(entry(n));
    await until(() => siems.every((siem) => siem.lines.length === 23));
    for (const siem of siems) expect(siem.lines).toEqual(sink.lines);
    expect(await verifyChain(siems[0].lines.map((line) => JSON.parse(line) as AuditRecord))).toEqual({
      ok: true,
      count: 23,
      chains: 1,
    });
    expect(trail.health().forwards.map((f) => [f.sink, f.state, f.delivered, f.spooled])).toEqual([
      ['syslog', 'ok', 23, 0],
      ['webhook', 'ok', 23, 0],
    ]);
    await trail.close(1_000);
  });

  it('keeps what a sink that is down did not take, retries the very same batch, and holds no other sink up', async () => {
    const { siems, trail } = await setUp(['up', 'down']);
    const [up, down] = siems;
    down.down = true;
    for (let n = 1; n <= 12; n++) trail.record(entry(n));
    await until(() => up.lines.length === 12);
    await until(() => trail.health().forwards[1].failures >= 2);
    const failing = trail.health().forwards[1];
    expect([failing.state, failing.spooled, failing.delivered]).toEqual(['failing', 12, 0]);
    expect(failing.lastError).toBe('down is down');
    down.down = false;
    await until(() => down.lines.length === 12);
    expect(down.lines).toEqual(up.lines);
    expect(down.batches.map((batch) => batch.length)).toEqual([5, 5, 2]);
    expect(trail.health().forwards[1]).toMatchObject({ state: 'ok', spooled: 0, delivered: 12 });
    await trail.close(1_000);
  });

  it('leaves what it could not deliver at shutdown in its spool, and delivers it first at the next start', async () => {
    const { siems, trail, settings, forwarders } = await setUp(['siem']);
    siems[0].down = true;
    for (let n = 1; n <= 8; n++) trail.record(entry(n));
    await until(() => forwarders[0].health().spooled === 8);
    await trail.close(50);

    const again = new MemorySiem('siem');
    const next = new AuditForwarder(again, settings('siem'));
    next.start();
    await until(() => again.lines.length === 8);
    const records = again.lines.map((line) => JSON.parse(line) as AuditRecord);
    expect(records.map((record) => record.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect((await verifyChain(records)).ok).toBe(true);
    await next.close(100);
  });
});
