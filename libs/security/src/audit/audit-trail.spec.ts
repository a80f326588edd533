import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyChain } from './audit-chain';
import type { AuditEntry, AuditRecord } from './audit-record';
import type { AuditSink } from './audit-sink';
import { AuditSpool } from './audit-spool';
import { AuditTrail, type AuditTrailSettings } from './audit-trail';
import { JsonlAuditSink, readTrail, trailFiles } from './jsonl-audit.sink';
import { redactSensitive, sensitiveFieldsOf } from './sensitive-fields';

/** A sink kept in memory that can be switched off, as a stand-in for a server going away. */
class SwitchableSink implements AuditSink {
  readonly name = 'memory';
  readonly stored: AuditRecord[] = [];
  down = false;
  append(records: readonly AuditRecord[]): Promise<void> {
    if (this.down) return Promise.reject(new Error('connection refused'));
    for (const record of records) if (!this.stored.some((stored) => stored.id === record.id)) this.stored.push(record);
    return Promise.resolve();
  }
}

const settings = (overrides: Partial<AuditTrailSettings> = {}): AuditTrailSettings => ({
  policy: 'fail-closed',
  bufferSize: 100,
  flushIntervalMs: 5,
  batchSize: 10,
  chain: 'test',
  recentSize: 50,
  digestKey: undefined,
  spoolFile: undefined,
  refusalWindowMs: 60_000,
  ...overrides,
});

const entry = (n: number, overrides: Partial<AuditEntry> = {}): AuditEntry => ({
  startedAt: Date.now(),
  principal: 'alice',
  transport: 'http',
  sessionId: 's',
  client: null,
  method: 'tools/call',
  target: `tool-${n}`,
  arguments: { n },
  outcome: 'ok',
  errorCode: null,
  error: null,
  latencyMs: 1,
  traceId: null,
  remoteAddress: null,
  ...overrides,
});

/** A JSONL trail in a new directory, holding records 1 to 3 written and closed by a first trail. */
const trailOfThree = async (prefix: string) => {
  const file = join(await mkdtemp(join(tmpdir(), prefix)), 'audit.jsonl');
  const first = new AuditTrail(new JsonlAuditSink({ file }), settings());
  await first.start();
  for (let n = 1; n <= 3; n++) first.record(entry(n));
  await first.close();
  return file;
};

/** The lines of a trail file. */
const linesOf = async (file: string) => (await readFile(file, 'utf8')).trim().split('\n');

const until = async (condition: () => boolean) => {
  for (let i = 0; i < 400 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
};

describe('AuditTrail', () => {
  it('writes entries in batches as one verifiable chain', async () => {
    const sink = new SwitchableSink();
    const trail = new AuditTrail(sink, settings());
    await trail.start();
    for (let n = 1; n <= 25; n++) trail.record(entry(n));
    await trail.flush();
    expect(sink.stored.map((record) => record.target)).toEqual(Array.from({ length: 25 }, (_, i) => `tool-${i + 1}`));
    expect(await verifyChain(sink.stored)).toEqual({ ok: true, count: 25, chains: 1 });
    expect(trail.health()).toMatchObject({ state: 'ok', written: 25, queued: 0, dropped: 0 });
    expect(trail.recent({ limit: 2 }).map((record) => record.target)).toEqual(['tool-25', 'tool-24']);
    expect(trail.recent({ target: 'tool-3' })).toHaveLength(1);
  });

  it('keeps the newest recentSize records for the dashboard, across batches, newest first', async () => {
    const sink = new SwitchableSink();
    const trail = new AuditTrail(sink, settings({ recentSize: 25, bufferSize: 1_000 }));
    await trail.start();
    for (let n = 1; n <= 87; n++) {
      trail.record(entry(n, n % 10 === 0 ? { outcome: 'denied' } : {}));
      if (n % 7 === 0) await trail.flush(); // batches of 7 and of 10 (batchSize)
    }
    await trail.flush();
    const newest = Array.from({ length: 25 }, (_, i) => `tool-${87 - i}`);
    expect(trail.recent({ limit: 1_000 }).map((record) => record.target)).toEqual(newest);
    expect(trail.recent().map((record) => record.seq)).toEqual(Array.from({ length: 25 }, (_, i) => 87 - i));
    expect(trail.recent({ outcome: 'denied' }).map((record) => record.target)).toEqual(['tool-80', 'tool-70']);
    expect(trail.recent({ target: 'tool-62' })).toEqual([]);
    expect(trail.recent({ target: 'tool-63', limit: 1 })).toEqual([sink.stored[62]]);
  });

  it('redacts sensitive fields and credential-like names; digests what was sent, keyed when asked', async () => {
    const sink = new SwitchableSink();
    const trail = new AuditTrail(sink, settings({ digestKey: 'k' }));
    await trail.start();
    const sensitive = sensitiveFieldsOf({
      type: 'object',
      properties: { pin: { type: 'string', writeOnly: true }, card: { $ref: '#/$defs/Card' } },
      $defs: { Card: { properties: { cvv: { 'x-sensitive': true } } } },
    });
    trail.record(
      entry(1, {
        arguments: { user: 'bob', pin: '1234', card: { number: '4111', cvv: '999' }, apiKey: 'sk-live' },
        sensitive,
      }),
    );
    await trail.flush();
    const [record] = sink.stored;
    expect(record.arguments).toEqual({
      user: 'bob',
      pin: '[REDACTED]',
      card: { number: '4111', cvv: '[REDACTED]' },
      apiKey: '[REDACTED]',
    });
    expect(record.argumentsDigest).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
  });

  it('fail-closed: refuses calls while the sink is down, keeps every record, and writes them all once it is back', async () => {
    const sink = new SwitchableSink();
    const trail = new AuditTrail(sink, settings());
    await trail.start();
    expect(trail.admits()).toBe(true);
    sink.down = true;
    for (let n = 1; n <= 5; n++) trail.record(entry(n));
    await until(() => trail.health().state === 'failing');
    expect(trail.admits()).toBe(false);
    expect(trail.health()).toMatchObject({ queued: 5, dropped: 0, lastError: 'connection refused' });
    sink.down = false;
    await until(() => trail.admits());
    expect(sink.stored).toHaveLength(5);
    expect(await verifyChain(sink.stored)).toMatchObject({ ok: true, count: 5 });
  });

  it('fail-closed: refuses calls until a sink that could not open at start-up opens', async () => {
    const sink = new SwitchableSink();
    sink.down = true;
    let opens = 0;
    const opening: AuditSink = {
      name: 'memory',
      open: async () => {
        opens++;
        if (sink.down) throw new Error('no route to host');
      },
      append: (records) => sink.append(records),
    };
    const trail = new AuditTrail(opening, settings());
    await trail.start();
    expect(trail.admits()).toBe(false);
    expect(trail.health()).toMatchObject({ state: 'failing', lastError: 'no route to host' });
    sink.down = false;
    await until(() => trail.admits());
    expect(trail.health().state).toBe('ok');
    expect(opens).toBeGreaterThan(1);
    await trail.close();
  });

  it('buffered: calls go on; past the buffer, records are dropped, counted and logged', async () => {
    const sink = new SwitchableSink();
    const trail = new AuditTrail(sink, settings({ policy: 'buffered', bufferSize: 3 }));
    await trail.start();
    sink.down = true;
    for (let n = 1; n <= 5; n++) trail.record(entry(n));
    expect(trail.admits()).toBe(true);
    expect(trail.health()).toMatchObject({ dropped: 2 });
    sink.down = false;
    expect(await trail.flush()).toBe(0);
    expect(sink.stored.map((record) => record.target)).toEqual(['tool-1', 'tool-2', 'tool-3']);
  });

  it('close() flushes everything taken, and a restarted trail continues the chain where the sink left it', async () => {
    const file = await trailOfThree('trail-');
    const second = new AuditTrail(new JsonlAuditSink({ file }), settings());
    await second.start();
    second.record(entry(4));
    await second.close();
    const records = (await linesOf(file)).map((line) => JSON.parse(line) as AuditRecord);
    expect(records.map((record) => record.seq)).toEqual([1, 2, 3, 4]);
    expect(await verifyChain(records)).toMatchObject({ ok: true, count: 4 });
  });
});

describe('redactSensitive', () => {
  it('copies only what it redacts and never touches the value it was given', () => {
    const plain = { a: 1, list: [{ b: 2 }] };
    expect(redactSensitive(plain)).toBe(plain);
    const secret = { a: 1, list: [{ b: 2, password: 'x' }], keep: { c: 3 } };
    const redacted = redactSensitive(secret) as typeof secret;
    expect(redacted).toEqual({ a: 1, list: [{ b: 2, password: '[REDACTED]' }], keep: { c: 3 } });
    expect(secret.list[0].password).toBe('x');
    expect(redacted.keep).toBe(secret.keep);
  });
});

describe('JsonlAuditSink', () => {
  it('refuses a file another live trail is writing, and takes over a stale lock', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'lock-')), 'audit.jsonl');
    const first = new JsonlAuditSink({ file });
    await first.open();
    await expect(new JsonlAuditSink({ file }).open()).rejects.toThrow(
      /being written by another audit trail of this process; give each host its own audit file/,
    );
    await first.close();
    await writeFile(`${file}.lock`, '999999999');
    const second = new JsonlAuditSink({ file });
    await expect(second.open()).resolves.toBeUndefined();
    await second.close();
  });

  it('refuses calls (fail-closed) while its file cannot be written, and writes every record once when it can again', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'full-')), 'audit.jsonl');
    // A disk that is full: every write fails with ENOSPC.
    await symlink('/dev/full', file);
    const trail = new AuditTrail(new JsonlAuditSink({ file }), settings());
    await trail.start();
    for (let n = 1; n <= 5; n++) trail.record(entry(n));
    await trail.flush(100);
    expect(trail.admits()).toBe(false);
    expect(trail.health()).toMatchObject({
      state: 'failing',
      queued: 5,
      written: 0,
      lastError: expect.stringContaining('ENOSPC'),
    });
    // Space again (the path now names a real file): the retry reopens it and writes the batch once.
    await rm(file);
    await trail.flush();
    expect(trail.admits()).toBe(true);
    await trail.close();
    const records = (await linesOf(file)).map((line) => JSON.parse(line) as AuditRecord);
    expect(records.map((record) => record.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(await verifyChain(records)).toMatchObject({ ok: true, count: 5 });
  });

  it('finds where each chain stands by reading its files from the end, across blocks and long lines', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'tail-')), 'audit.jsonl');
    const line = (chain: string, seq: number, pad = 0) =>
      JSON.stringify({ chain, seq, hash: `${chain}-${seq}`, arguments: { pad: 'x'.repeat(pad) } });
    const lines: string[] = [];
    for (let seq = 1; seq <= 300; seq++) lines.push(line('old-host', seq, 500));
    lines.push('not json {', line('old-host', 301, 200_000), '');
    for (let seq = 1; seq <= 200; seq++) lines.push(line('new-host', seq, seq === 200 ? 70_000 : 300));
    await writeFile(file, `${lines.join('\n')}\n`);
    const sink = new JsonlAuditSink({ file });
    expect(await sink.tail('new-host')).toEqual({ seq: 200, hash: 'new-host-200' });
    expect(await sink.tail('old-host')).toEqual({ seq: 301, hash: 'old-host-301' });
    expect(await sink.tail('nobody')).toBeUndefined();
    // The first line of the file, with no newline before it, counts too; so does a last line without one.
    await writeFile(file, `${line('first', 1)}\n${line('other', 1)}`);
    expect(await sink.tail('first')).toEqual({ seq: 1, hash: 'first-1' });
    expect(await sink.tail('other')).toEqual({ seq: 1, hash: 'other-1' });
  });

  it('ends a line cut short by a crash before writing on, and continues the chain from the last whole record', async () => {
    const file = await trailOfThree('torn-');
    const whole = await readFile(file, 'utf8');
    await writeFile(file, `${whole}{"chain":"test","seq":4,"ha`);
    const second = new AuditTrail(new JsonlAuditSink({ file }), settings());
    await second.start();
    second.record(entry(4));
    await second.close();
    const lines = await linesOf(file);
    expect(lines).toHaveLength(5);
    expect(lines[3]).toBe('{"chain":"test","seq":4,"ha');
    const records = [...lines.slice(0, 3), lines[4]].map((line) => JSON.parse(line) as AuditRecord);
    expect(records.map((record) => record.seq)).toEqual([1, 2, 3, 4]);
    expect(await verifyChain(records)).toMatchObject({ ok: true, count: 4 });
  });

  it('rotates by size into numbered files that read back, in order, as one chain', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'rotate-')), 'audit.jsonl');
    const trail = new AuditTrail(new JsonlAuditSink({ file, rotateBytes: 2_048 }), settings({ batchSize: 3 }));
    await trail.start();
    for (let n = 1; n <= 40; n++) {
      trail.record(entry(n));
      if (n % 3 === 0) await trail.flush();
    }
    await trail.close();
    const files = await trailFiles(file);
    expect(files.length).toBeGreaterThan(2);
    expect(files[files.length - 1]).toBe(file);
    expect(files[0]).toMatch(/audit\.000001\.jsonl$/);
    const records: AuditRecord[] = [];
    for await (const { record } of readTrail(file)) records.push(record!);
    expect(records.map((record) => record.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(await verifyChain(records)).toMatchObject({ ok: true, count: 40 });
  });
});

describe('AuditTrail under the buffered policy: the spool', () => {
  const spooled = async (prefix: string) => join(await mkdtemp(join(tmpdir(), prefix)), 'spool', 'test.jsonl');

  it('spills to a local spool once memory is full while the sink is down, and loses nothing', async () => {
    const sink = new SwitchableSink();
    const spoolFile = await spooled('spool-');
    const trail = new AuditTrail(sink, settings({ policy: 'buffered', bufferSize: 10, spoolFile }));
    await trail.start();
    sink.down = true;
    for (let n = 1; n <= 100; n++) trail.record(entry(n));
    await until(() => trail.health().state === 'failing');
    expect(trail.health()).toMatchObject({ dropped: 0, spooled: expect.any(Number) });
    expect(trail.health().spooled + trail.health().queued).toBe(100);
    expect(trail.health().spoolBytes).toBeGreaterThan(0);
    sink.down = false;
    expect(await trail.flush()).toBe(0);
    // Every record, once, in chain order.
    expect(sink.stored.map((record) => record.target)).toEqual(Array.from({ length: 100 }, (_, i) => `tool-${i + 1}`));
    expect(await verifyChain(sink.stored)).toEqual({ ok: true, count: 100, chains: 1 });
    expect(trail.health()).toMatchObject({ state: 'ok', spooled: 0, spoolBytes: 0, written: 100 });
    expect(await readFile(spoolFile, 'utf8')).toBe('');
    await trail.close();
  });

  it('spills the oldest batch at a time, so that no one request chains the whole buffer, and keeps the order', async () => {
    const sink = new SwitchableSink();
    const trail = new AuditTrail(
      sink,
      settings({ policy: 'buffered', bufferSize: 50, batchSize: 10, spoolFile: await spooled('batch-spool-') }),
    );
    await trail.start();
    sink.down = true;
    for (let n = 1; n <= 51; n++) trail.record(entry(n));
    expect(trail.health()).toMatchObject({ spooled: 10, queued: 41 });
    for (let n = 52; n <= 100; n++) trail.record(entry(n));
    sink.down = false;
    expect(await trail.flush()).toBe(0);
    expect(sink.stored.map((record) => record.target)).toEqual(Array.from({ length: 100 }, (_, i) => `tool-${i + 1}`));
    expect(await verifyChain(sink.stored)).toEqual({ ok: true, count: 100, chains: 1 });
    await trail.close();
  });

  it('replays what a previous run left in the spool before anything new, continuing its chain', async () => {
    const sink = new SwitchableSink();
    const spoolFile = await spooled('respool-');
    const first = new AuditTrail(sink, settings({ policy: 'buffered', bufferSize: 5, spoolFile }));
    await first.start();
    first.record(entry(1));
    await first.flush();
    sink.down = true;
    for (let n = 2; n <= 30; n++) first.record(entry(n));
    await first.close(50); // the sink is still down: what waits goes to the spool for the next start
    expect(sink.stored).toHaveLength(1);
    sink.down = false;
    const second = new AuditTrail(sink, settings({ policy: 'buffered', bufferSize: 5, spoolFile }));
    await second.start();
    second.record(entry(31));
    await second.close();
    expect(sink.stored.map((record) => record.target)).toEqual(Array.from({ length: 31 }, (_, i) => `tool-${i + 1}`));
    expect(await verifyChain(sink.stored)).toEqual({ ok: true, count: 31, chains: 1 });
  });

  it('replays a spool whose last line a crash cut short, and chains on from its last whole record', async () => {
    const sink = new SwitchableSink();
    const spoolFile = await spooled('torn-spool-');
    const first = new AuditTrail(sink, settings({ policy: 'buffered', bufferSize: 5, spoolFile }));
    await first.start();
    sink.down = true;
    for (let n = 1; n <= 20; n++) first.record(entry(n));
    await first.close(50);
    // The host died while appending: half a record ends the file.
    const whole = await readFile(spoolFile, 'utf8');
    const lines = whole.trim().split('\n');
    expect(lines).toHaveLength(20);
    await writeFile(spoolFile, `${lines.slice(0, 19).join('\n')}\n${lines[19].slice(0, 40)}`);
    // The sink is still down at the next start: new records are spooled after what is left.
    const second = new AuditTrail(sink, settings({ policy: 'buffered', bufferSize: 5, spoolFile }));
    await second.start();
    for (let n = 21; n <= 30; n++) second.record(entry(n));
    sink.down = false;
    await second.close();
    const expected = [...Array.from({ length: 19 }, (_, i) => i + 1), ...Array.from({ length: 10 }, (_, i) => i + 21)];
    expect(sink.stored.map((record) => record.target)).toEqual(expected.map((n) => `tool-${n}`));
    expect(await verifyChain(sink.stored)).toEqual({ ok: true, count: 29, chains: 1 });
    expect(second.health()).toMatchObject({ state: 'ok', spooled: 0, dropped: 0 });
  });

  it('reads a spool larger than it reads at a time without holding it whole', async () => {
    const sink = new SwitchableSink();
    const spoolFile = await spooled('big-spool-');
    const first = new AuditTrail(sink, settings({ policy: 'buffered', bufferSize: 100, batchSize: 500, spoolFile }));
    await first.start();
    sink.down = true;
    // About 2,500 bytes a record: 3,000 of them are more than one read block.
    const bulky = (n: number) => entry(n, { arguments: { n, note: 'x'.repeat(2_400) } });
    for (let n = 1; n <= 3_000; n++) first.record(bulky(n));
    await first.close(50);
    const second = new AuditTrail(sink, settings({ policy: 'buffered', bufferSize: 100, batchSize: 500, spoolFile }));
    sink.down = false;
    await second.start();
    await second.close();
    expect(sink.stored).toHaveLength(3_000);
    expect(sink.stored.map((record) => (record.arguments as { n: number }).n)).toEqual(
      Array.from({ length: 3_000 }, (_, i) => i + 1),
    );
    expect(await verifyChain(sink.stored)).toMatchObject({ ok: true, count: 3_000 });
  });

  it('drops only what a full disk cannot take: counted, shown as failing, and with no gap in the chain', async () => {
    const sink = new SwitchableSink();
    const trail = new AuditTrail(sink, settings({ policy: 'buffered', bufferSize: 10, spoolFile: '/dev/full' }));
    await trail.start();
    sink.down = true;
    for (let n = 1; n <= 30; n++) trail.record(entry(n));
    expect(trail.health()).toMatchObject({ state: 'failing', dropped: 20, spooled: 0 });
    sink.down = false;
    await trail.flush();
    expect(sink.stored.map((record) => record.target)).toEqual(Array.from({ length: 10 }, (_, i) => `tool-${i + 1}`));
    expect(await verifyChain(sink.stored)).toMatchObject({ ok: true, count: 10 });
    // The sink writes again and nothing more is dropped: healthy, with the drops still counted.
    expect(trail.health()).toMatchObject({ state: 'ok', dropped: 20 });
    await trail.close();
  });

  it('tries a full disk again at most once a second, not for every record that does not fit', async () => {
    const sink = new SwitchableSink();
    const trail = new AuditTrail(sink, settings({ policy: 'buffered', bufferSize: 200, spoolFile: '/dev/full' }));
    await trail.start();
    sink.down = true;
    const append = jest.spyOn(AuditSpool.prototype, 'append');
    try {
      // Each try would chain the whole buffer again: 2,000 of them cost the request path seconds.
      for (let n = 1; n <= 2_200; n++) trail.record(entry(n));
      expect(append.mock.calls.length).toBeLessThanOrEqual(2);
      expect(trail.health()).toMatchObject({ state: 'failing', dropped: 2_000 });
    } finally {
      append.mockRestore();
    }
    sink.down = false;
    await trail.flush();
    expect(await verifyChain(sink.stored)).toMatchObject({ ok: true, count: 200 });
    await trail.close();
  });

  it('lets the JSON-lines sink take a replayed record once', async () => {
    const file = await trailOfThree('replay-');
    const sink = new JsonlAuditSink({ file });
    await sink.tail('test');
    const records: AuditRecord[] = [];
    for await (const { record } of readTrail(file)) records.push(record!);
    await sink.append(records.slice(1));
    await sink.close();
    expect(await linesOf(file)).toHaveLength(3);
  });
});

describe('AuditTrail refusals', () => {
  afterEach(() => jest.useRealTimers());

  it('records the first of a window per address and reason at once, and the rest as one record with a count', async () => {
    jest.useFakeTimers({ now: 1_000_000, doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    const sink = new SwitchableSink();
    const trail = new AuditTrail(sink, settings({ refusalWindowMs: 60_000, bufferSize: 10_000, batchSize: 500 }));
    await trail.start();
    const refusal = (address: string, outcome: 'unauthenticated' | 'denied' = 'unauthenticated') =>
      entry(0, {
        method: null,
        principal: null,
        target: null,
        arguments: undefined,
        outcome,
        errorCode: outcome === 'denied' ? 403 : 401,
        error: 'No API key',
        remoteAddress: address,
      });
    for (let i = 0; i < 5_000; i++) trail.recordRefusal(refusal('203.0.113.7'));
    for (let i = 0; i < 3; i++) trail.recordRefusal(refusal('203.0.113.8'));
    trail.recordRefusal(refusal('203.0.113.7', 'denied'));
    jest.advanceTimersByTime(60_000);
    jest.useRealTimers();
    await trail.flush();
    const summary = sink.stored.map((record) => [record.remoteAddress, record.outcome, record.count ?? 1]);
    expect(summary).toEqual([
      ['203.0.113.7', 'unauthenticated', 1],
      ['203.0.113.8', 'unauthenticated', 1],
      ['203.0.113.7', 'denied', 1],
      ['203.0.113.7', 'unauthenticated', 4_999],
      ['203.0.113.8', 'unauthenticated', 2],
    ]);
    // Every refusal is accounted for, and the records verify with their counts.
    expect(summary.reduce((sum, [, , count]) => sum + (count as number), 0)).toBe(5_004);
    expect(await verifyChain(sink.stored)).toMatchObject({ ok: true, count: 5 });
    await trail.close();
  });

  it('takes refusals that differ only in what the sender chose (a header value, a number) as alike', async () => {
    const sink = new SwitchableSink();
    const trail = new AuditTrail(sink, settings());
    await trail.start();
    const refusal = (errorCode: number, error: string) =>
      entry(0, {
        method: null,
        principal: null,
        target: null,
        arguments: undefined,
        outcome: errorCode === 403 ? 'denied' : 'throttled',
        errorCode,
        error,
        remoteAddress: '203.0.113.9',
      });
    // A new Origin on every request, 16 KB long: each would be a new reason, and a record of its own.
    for (let i = 0; i < 1_000; i++)
      trail.recordRefusal(
        refusal(
          403,
          `Forbidden: Origin "http://${i}.${'x'.repeat(16_000)}.example" is not allowed; add it to allowedOrigins`,
        ),
      );
    // A lock-out whose message counts down the seconds.
    for (let i = 0; i < 100; i++)
      trail.recordRefusal(
        refusal(
          429,
          `Too Many Requests: too many failed authentications from this address; retry in ${60 - (i % 60)} s`,
        ),
      );
    await trail.close();
    expect(sink.stored.map((record) => [record.errorCode, record.count ?? 1])).toEqual([
      [403, 1],
      [429, 1],
      [403, 999],
      [429, 99],
    ]);
    // What the sender chose is kept, cut short: the first one and the last one of the window.
    expect(sink.stored[0].error).toMatch(/^Forbidden: Origin "http:\/\/0\.x+…$/);
    expect(sink.stored[2].error).toMatch(/^Forbidden: Origin "http:\/\/999\.x+…$/);
    expect(sink.stored.every((record) => record.error!.length <= 1_000)).toBe(true);
  });

  it('writes what a window counted when the trail closes', async () => {
    const sink = new SwitchableSink();
    const trail = new AuditTrail(sink, settings());
    await trail.start();
    for (let i = 0; i < 10; i++)
      trail.recordRefusal(entry(0, { method: null, outcome: 'unauthenticated', remoteAddress: '198.51.100.1' }));
    await trail.close();
    expect(sink.stored.map((record) => record.count ?? 1)).toEqual([1, 9]);
    // One refused after the trail closed is counted as dropped, as any record is.
    trail.recordRefusal(entry(0, { method: null, outcome: 'unauthenticated', remoteAddress: '198.51.100.1' }));
    expect(trail.health().dropped).toBe(1);
  });
});
