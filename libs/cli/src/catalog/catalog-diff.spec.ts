import { diffCatalogs } from './catalog-diff';
import type { CatalogSnapshot, ToolSnapshot } from './catalog-snapshot';

const OPEN = { scopes: [], roles: [] };
const refund: ToolSnapshot = {
  description: 'Refunds an order',
  inputSchema: {
    type: 'object',
    properties: {
      orderId: { type: 'string', pattern: '^O-\\d+$' },
      amount: { type: 'number' },
      reason: { type: 'string', enum: ['damaged', 'late', 'other'] },
      note: { type: 'string' },
    },
    required: ['orderId', 'amount'],
  },
  outputSchema: {
    type: 'object',
    properties: { id: { type: 'string' }, status: { type: 'string', enum: ['done', 'pending'] } },
    required: ['id', 'status'],
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  access: { scopes: ['orders:write'], roles: [] },
};

const snapshot = (tools: Record<string, ToolSnapshot>, extra: Partial<CatalogSnapshot> = {}): CatalogSnapshot => ({
  catalogSnapshot: 1,
  tools,
  prompts: {},
  resources: {},
  resourceTemplates: {},
  ...extra,
});
type Mutable<T> = { -readonly [K in keyof T]: T[K] };
const changed = (change: (tool: Mutable<ToolSnapshot>) => void) => {
  const tool: Mutable<ToolSnapshot> = structuredClone(refund);
  change(tool);
  return diffCatalogs(snapshot({ refund }), snapshot({ refund: tool }));
};
const input = (tool: ToolSnapshot) =>
  tool.inputSchema as { properties: Record<string, Record<string, unknown>>; required: string[] };
const output = (tool: ToolSnapshot) =>
  tool.outputSchema as { properties: Record<string, Record<string, unknown>>; required: string[] };

describe('diffCatalogs', () => {
  it('finds nothing between a catalog and itself', () => {
    expect(diffCatalogs(snapshot({ refund }), snapshot({ refund }))).toEqual({ breaking: [], changes: [] });
  });

  it.each([
    ['a tool removed', () => diffCatalogs(snapshot({ refund }), snapshot({})), 'tool "refund" was removed'],
    [
      'an argument removed',
      () => changed((t) => delete input(t).properties.note),
      'tool "refund": argument "note" was removed',
    ],
    [
      'an argument newly required',
      () => changed((t) => input(t).required.push('reason')),
      'tool "refund": argument "reason" is now required',
    ],
    [
      'a new required argument',
      () => changed((t) => ((input(t).properties.currency = { type: 'string' }), input(t).required.push('currency'))),
      'tool "refund": argument "currency" is new and required',
    ],
    [
      'an argument of another type',
      () => changed((t) => (input(t).properties.amount.type = 'integer')),
      'tool "refund": argument "amount": type number is now integer',
    ],
    [
      'an allowed value dropped',
      () => changed((t) => (input(t).properties.reason.enum = ['damaged', 'late'])),
      'tool "refund": argument "reason": no longer accepts "other"',
    ],
    [
      'a pattern changed',
      () => changed((t) => (input(t).properties.orderId.pattern = '^ORD-\\d+$')),
      'tool "refund": argument "orderId": must now match "^ORD-\\\\d+$"',
    ],
    [
      'an output field removed',
      () => changed((t) => delete output(t).properties.status),
      'tool "refund": output field "status" was removed',
    ],
    [
      'an output field no longer given',
      () => changed((t) => (output(t).required = ['id'])),
      'tool "refund": output field "status" is no longer always given',
    ],
    [
      'an output value added',
      () => changed((t) => (output(t).properties.status.enum = ['done', 'pending', 'failed'])),
      'tool "refund": output field "status": may now be "failed"',
    ],
    [
      'the output schema dropped',
      () => changed((t) => delete t.outputSchema),
      'tool "refund": its output schema was removed',
    ],
    [
      'no longer idempotent',
      () => changed((t) => (t.annotations!.idempotentHint = false)),
      'tool "refund": annotation idempotentHint true is now false',
    ],
    [
      'now destructive',
      () => changed((t) => (t.annotations!.destructiveHint = true)),
      'tool "refund": annotation destructiveHint false is now true',
    ],
    [
      'a scope required',
      () => changed((t) => (t.access = { scopes: ['orders:write', 'finance'], roles: [] })),
      'tool "refund": now requires the scope "finance"',
    ],
    [
      'a role required',
      () => changed((t) => (t.access = { scopes: ['orders:write'], roles: ['lead'] })),
      'tool "refund": now requires one of the roles "lead"',
    ],
  ])('breaks callers on %s', (_what, diff, line) => {
    expect(diff().breaking).toEqual([line]);
  });

  it('lists what breaks no caller: additions, descriptions, optional arguments, wider access', () => {
    const wider = changed((t) => {
      t.description = 'Refunds an order, in full or in part';
      input(t).properties.channel = { type: 'string' };
      output(t).properties.refundedAt = { type: 'string' };
      input(t).properties.reason.enum = ['damaged', 'late', 'other', 'duplicate'];
      t.access = { scopes: [], roles: [] };
    });
    expect(wider.breaking).toEqual([]);
    expect(wider.changes).toEqual([
      'tool "refund": description changed',
      'tool "refund": no longer requires the scope "orders:write" (wider access)',
      'tool "refund": argument "channel" was added',
      'tool "refund": output field "refundedAt" was added',
    ]);
    expect(diffCatalogs(snapshot({}), snapshot({ refund })).changes).toEqual(['tool "refund" was added']);
  });

  it('compares prompts and resources too', () => {
    const before = snapshot(
      {},
      {
        prompts: { triage: { arguments: [{ name: 'ticketId', required: true }], access: OPEN } },
        resources: { 'kb://articles': { mimeType: 'application/json', access: OPEN } },
      },
    );
    const now = snapshot(
      {},
      {
        prompts: {
          triage: {
            arguments: [
              { name: 'ticketId', required: true },
              { name: 'tone', required: true },
            ],
            access: OPEN,
          },
        },
        resources: { 'kb://articles': { mimeType: 'text/markdown', access: OPEN } },
      },
    );
    expect(diffCatalogs(before, now).breaking).toEqual([
      'prompt "triage": argument "tone" is new and required',
      'resource "kb://articles": MIME type "application/json" is now "text/markdown"',
    ]);
  });
});
