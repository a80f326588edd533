import { canonicalJson, canonicalRecordJson, GENESIS_HASH, hashRecord, verifyChain } from './audit-chain';
import type { AuditRecord } from './audit-record';

function chainOf(count: number, chain = 'host-a'): AuditRecord[] {
  const records: AuditRecord[] = [];
  let prevHash = GENESIS_HASH;
  for (let seq = 1; seq <= count; seq++) {
    const record = {
      id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
      time: new Date(1_700_000_000_000 + seq).toISOString(),
      chain,
      seq,
      prevHash,
      principal: 'alice',
      transport: 'http' as const,
      sessionId: 's1',
      client: { name: 'c', version: '1' },
      method: 'tools/call',
      target: 'search',
      arguments: { q: `term ${seq}`, nested: { b: 1, a: [1, 2] } },
      argumentsDigest: null,
      outcome: 'ok' as const,
      errorCode: null,
      error: null,
      latencyMs: 1.5,
      traceId: null,
      remoteAddress: '127.0.0.1',
    };
    const hash = hashRecord(record);
    records.push({ ...record, hash });
    prevHash = hash;
  }
  return records;
}

describe('canonicalJson', () => {
  it('sorts keys at every level and drops undefined fields', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[1,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('writes every string exactly as JSON.stringify does (plain ones take a shortcut)', () => {
    const strings = [
      '',
      'add',
      'tools/call',
      '127.0.0.1',
      'a"b',
      'back\\slash',
      'tab\there',
      'nul\u0000',
      '\u001f',
      'del\u007f',
      'é',
      '😀',
      '\ud800 lone',
      '\u2028',
      '~ !#[]{}',
    ];
    for (const value of strings) {
      expect(canonicalJson(value)).toBe(JSON.stringify(value));
      expect(canonicalJson({ [value]: value })).toBe(JSON.stringify({ [value]: value }));
    }
  });
});

describe('canonicalRecordJson', () => {
  it('writes exactly what the generic canonical JSON writes, for every kind of field value', () => {
    const [record] = chainOf(1);
    const { hash: _hash, ...fields } = record;
    const variants = [
      fields,
      {
        ...fields,
        arguments: null,
        client: null,
        principal: null,
        target: 'x"y\\z\u2028',
        errorCode: -32602,
        error: 'Unknown tool: "a"',
      },
      { ...fields, arguments: [{ b: [1, { d: null, c: 'é' }], a: true }], latencyMs: 0.001, remoteAddress: '::1' },
      // A record that sums up repeated refusals.
      { ...fields, method: null, arguments: null, outcome: 'unauthenticated' as const, errorCode: 401, count: 4_999 },
      // A 2026-07-28 call of a tool made from a REST route.
      { ...fields, protocolVersion: '2026-07-28', route: 'DELETE /api/tickets/{ticketId}' },
      // A call made from an MCP Apps view.
      { ...fields, origin: 'view', method: 'tools/call', target: 'ticket_history' },
      // A call through a composed virtual server's path.
      { ...fields, server: 'finance "desk"', method: 'tools/call', target: 'ledger__get_entry' },
      // A call governance decided about: a policy refused it, a guardrail found an e-mail address.
      {
        ...fields,
        outcome: 'denied' as const,
        governance: {
          refused: [{ policy: 'urgent-needs-lead', reason: 'only a lead' }],
          findings: [{ detector: 'email', in: 'arguments' as const, path: '$.note', action: 'flag' as const }],
        },
      },
    ];
    for (const variant of variants) {
      expect(canonicalRecordJson(variant)).toBe(canonicalJson(variant));
      expect(JSON.parse(canonicalRecordJson(variant))).toEqual(JSON.parse(JSON.stringify(variant)));
    }
  });
});

describe('verifyChain', () => {
  it('accepts an intact chain, and several interleaved chains', async () => {
    expect(await verifyChain(chainOf(5))).toEqual({ ok: true, count: 5, chains: 1 });
    const a = chainOf(3, 'a');
    const b = chainOf(3, 'b');
    expect(await verifyChain([a[0], b[0], a[1], b[1], b[2], a[2]])).toEqual({ ok: true, count: 6, chains: 2 });
  });

  it('names a record whose contents were altered', async () => {
    const records = chainOf(5);
    records[2] = { ...records[2], principal: 'mallory' };
    const result = await verifyChain(records);
    expect(result).toMatchObject({
      ok: false,
      brokenAt: { seq: 3, position: 3 },
      reason: expect.stringContaining('altered'),
    });
  });

  it('names the record after a deleted one', async () => {
    const records = chainOf(5);
    records.splice(1, 1);
    expect(await verifyChain(records)).toMatchObject({
      ok: false,
      brokenAt: { seq: 3, position: 2 },
      reason: expect.stringContaining('missing'),
    });
  });

  it('names reordered records', async () => {
    const records = chainOf(4);
    [records[1], records[2]] = [records[2], records[1]];
    expect(await verifyChain(records)).toMatchObject({ ok: false, brokenAt: { seq: 3, position: 2 } });
  });

  it('names a record whose hash was recomputed after an edit (the link to it breaks)', async () => {
    const records = chainOf(4);
    const edited = { ...records[1], outcome: 'denied' as const };
    records[1] = { ...edited, hash: hashRecord(edited) };
    expect(await verifyChain(records)).toMatchObject({
      ok: false,
      brokenAt: { seq: 3 },
      reason: expect.stringContaining('prevHash'),
    });
  });

  it('skips exact repeats of a delivery that retried, and still names a repeat with other contents', async () => {
    const records = chainOf(5);
    // A connection broke after 2 and 3 arrived: the batch 2-4 came again.
    const delivered = [records[0], records[1], records[2], records[1], records[2], records[3], records[4]];
    expect(await verifyChain(delivered)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('seq 2 follows 3'),
    });
    expect(await verifyChain(delivered, { repeats: true })).toEqual({ ok: true, count: 7, chains: 1, repeats: 2 });
    const forged = { ...records[1], target: 'other' };
    const result = await verifyChain([records[0], records[1], records[2], forged], { repeats: true });
    expect(result).toMatchObject({
      ok: false,
      brokenAt: { seq: 2, position: 4 },
      reason: 'it repeats seq 2 with other contents: the record was altered',
    });
  });
});
