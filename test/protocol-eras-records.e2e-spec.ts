import type { AuditRecord } from '#libs/security';
import { ERA_CLIENTS, LEGACY, MODERN, type EraClient } from './support/era-clients';
import { auditRecords, readAuditTrail, scrapeMetrics, startDeskHost, type DeskHost } from './support/desk-host';
import type { PromSample } from './support/prometheus-text';

/** The requests the audit trail records of every call, refusal and read, whatever the revision. */
const AUDITED = ['tools/call', 'prompts/get', 'resources/read'];
/** The requests counted below (lists are counted but not audited). */
const COUNTED = [...AUDITED, 'tools/list'];

/** What an agent does with the desk in one sitting: the same script for every client. */
async function sitting(client: EraClient): Promise<string> {
  await client.listTools();
  await client.callTool('search_customers', { query: 'contoso' });
  await client.callTool('get_ticket', { ticketId: '42' });
  await client.callTool('get_ticket', { ticketId: 'T-9999' });
  await client.callTool('reopen_everything', {}).catch(() => undefined);
  await client.getPrompt('triage_ticket', { ticketId: 'T-2001' });
  await client.readResource('kb://articles/vat-rates');
  await client.readResource('kb://articles/unknown').catch(() => undefined);
  const opened = await client.callTool('create_ticket', {
    customerId: 'C-1004',
    subject: `Audited sitting of ${client.name}`,
    description: 'Opened and closed again by one scripted sitting.',
    priority: 'normal',
  });
  const ticketId = (opened.structuredContent as { id: string }).id;
  await client.callTool('close_ticket', { ticketId, resolution: 'Done.' });
  return ticketId;
}

/** The records one sitting must leave, for the revision it was spoken in. */
function expectedRecords(name: string, version: string, ticketId: string) {
  const common = {
    principal: 'local-operator',
    transport: 'http',
    client: { name, version: '1.0.0' },
    protocolVersion: version,
  };
  const call = (target: string, outcome: string, extra: Record<string, unknown> = {}) => ({
    ...common,
    method: 'tools/call',
    target,
    outcome,
    ...extra,
  });
  return [
    call('search_customers', 'ok', { arguments: { query: 'contoso' }, errorCode: null, error: null }),
    call('get_ticket', 'invalid', {
      arguments: { ticketId: '42' },
      error: 'Invalid arguments for tool "get_ticket": - ticketId: ticketId must look like T-2001',
    }),
    call('get_ticket', 'tool_error', {
      arguments: { ticketId: 'T-9999' },
      error: 'No ticket T-9999. Use search_tickets to find the right id.',
    }),
    call('reopen_everything', 'invalid', { errorCode: -32602 }),
    { ...common, method: 'prompts/get', target: 'triage_ticket', outcome: 'ok' },
    { ...common, method: 'resources/read', target: 'kb://articles/vat-rates', outcome: 'ok' },
    {
      ...common,
      method: 'resources/read',
      target: 'kb://articles/unknown',
      outcome: 'not_found',
      // The code each revision gives a missing resource.
      errorCode: version === MODERN ? -32602 : -32002,
    },
    call('create_ticket', 'ok'),
    // One record for the confirmed call, however many round trips the confirmation took.
    call('close_ticket', 'ok', { arguments: { ticketId, resolution: 'Done.' }, errorCode: null }),
  ];
}

/** Requests counted by `mcp_requests_total`, by method, target and outcome (summed over any other label). */
function counts(samples: PromSample[]): Map<string, number> {
  const series = new Map<string, number>();
  for (const { name, labels, value } of samples) {
    if (name !== 'mcp_requests_total' || !COUNTED.includes(labels.method)) continue;
    const key = `${labels.method} ${labels.target} ${labels.outcome}`;
    series.set(key, (series.get(key) ?? 0) + value);
  }
  return series;
}

/** What one client's sitting left behind. */
interface Sitting {
  title: string;
  name: string;
  expected: string;
  ticketId?: string;
  records: AuditRecord[];
  /** The change of each count over the sitting. */
  counted: Record<string, number>;
  /** Why the sitting could not be run (the client could not connect, a call failed). */
  failure?: unknown;
}

/**
 * The audit trail and the metrics are the host's account of what it did: a 2026-07-28 client
 * doing what a 2025-11-25 client did must leave the same records (naming the revision spoken)
 * and move the same counters.
 */
describe('the same account of the same work, from both eras (one host, MCP_MODE=stateful)', () => {
  let host: DeskHost;
  const sittings: Sitting[] = [];

  beforeAll(async () => {
    host = await startDeskHost();
    for (const [index, era] of ERA_CLIENTS.entries()) {
      const name = `sitting-${index}`;
      const one: Sitting = { title: era.title, name, expected: era.expected, records: [], counted: {} };
      sittings.push(one);
      const before = counts(await scrapeMetrics(host.base));
      try {
        const client = await era.connect(host.url, name, {
          elicit: () => ({ action: 'accept', content: { confirm: true } }),
        });
        try {
          one.ticketId = await sitting(client);
        } finally {
          await client.close();
        }
      } catch (error) {
        one.failure = error;
        continue;
      }
      for (const [key, value] of counts(await scrapeMetrics(host.base))) {
        const delta = value - (before.get(key) ?? 0);
        if (delta !== 0) one.counted[key] = delta;
      }
      const mine = (record: AuditRecord) => record.client?.name === name && AUDITED.includes(record.method ?? '');
      const count = expectedRecords(name, era.expected, one.ticketId!).length;
      one.records = await auditRecords(host.auditFile, mine, count).catch(async () =>
        (await readAuditTrail(host.auditFile)).filter(mine),
      );
    }
  }, 60_000);
  afterAll(() => host.close());

  it.each(ERA_CLIENTS.map((era, index) => ({ ...era, index })))(
    '$title: one record per call, naming the revision it was spoken in',
    ({ index }) => {
      const { name, expected, records, ticketId, failure } = sittings[index];
      if (failure) throw failure;
      const wanted = expectedRecords(name, expected, ticketId!);
      // Each record cut down to the fields its expectation names (ids, hashes and times differ by nature).
      const seen = records.map((record, at) =>
        Object.fromEntries(Object.keys(wanted[at] ?? wanted[0]).map((key) => [key, record[key as keyof AuditRecord]])),
      );
      expect(seen).toEqual(wanted);
    },
  );

  it('moves the same counters whichever revision the client speaks', () => {
    const [legacy, ...others] = sittings;
    expect(legacy.expected).toBe(LEGACY);
    expect(Object.keys(legacy.counted).length).toBeGreaterThan(0);
    for (const other of others) {
      if (other.failure) throw other.failure;
      expect({ [other.title]: other.counted }).toEqual({ [other.title]: legacy.counted });
    }
  });
});
