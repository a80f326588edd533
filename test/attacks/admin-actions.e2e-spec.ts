import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileVirtualServersStore } from 'nest-mcp-host';
import type { AuditRecord } from '#libs/security';
import { startConnectDesk, type ConnectDesk } from '../support/connect-desk';
import { waitFor } from '../support/wait-for';

jest.setTimeout(60_000);

/** A credential an upstream's administrator would never want in a log. */
const UPSTREAM_SECRET = 'mk-upstream-secret-0123456789abcdef';

/**
 * The admin API attacked and audited: every administrator's write — whichever feature serves it —
 * is an audit record naming who did what to what, and how it ended; every refused one too (no
 * credential, someone who is no administrator, a foreign Origin, a form post); and no record or
 * answer carries a secret. On the desk with its authorization server (sign-ins, signing keys),
 * connected accounts, governance and virtual servers.
 */
describe('attack: administrator actions nobody can account for', () => {
  let desk: ConnectDesk;

  /** An admin API request as `login` (an administrator with `roles: ['admin']`), JSON unless told. */
  async function admin(
    method: string,
    path: string,
    { as = 'dana', roles = ['admin'], body, headers = {} }: AdminCall = {},
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`${desk.base}/admin/api/${path}`, {
      method,
      headers: {
        ...(as && { authorization: `Bearer ${await desk.token(as, roles)}` }),
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  /** The newest record with `method` that `matches`, once the trail has it. */
  async function recordOf(method: string, matches: (record: AuditRecord) => boolean = () => true) {
    await waitFor(() => desk.records(method).some(matches));
    return desk.records(method).find(matches)!;
  }

  beforeAll(async () => {
    desk = await startConnectDesk({
      governance: { policies: [{ id: 'crm-for-agents', appliesTo: { names: ['crm_me'] }, condition: 'true' }] },
      virtualServers: { store: new FileVirtualServersStore(join(mkdtempSync(join(tmpdir(), 'vs-')), 'vs.json')) },
    });
  }, 60_000);

  afterAll(() => desk?.stop());

  it('records every administrator write with who, the action, the target and the outcome, never a secret', async () => {
    const writes: [string, string, unknown, Partial<AuditRecord>][] = [
      [
        'POST',
        'oauth/revoke',
        { subject: 'alice' },
        { method: 'admin/oauth.revoke', target: 'alice', arguments: { subject: 'alice', revoked: 0 } },
      ],
      ['POST', 'oauth/revoke', {}, { method: 'admin/oauth.revoke', outcome: 'invalid', errorCode: 400, target: null }],
      ['POST', 'oauth/keys/rotate', {}, { method: 'admin/oauth.keys.rotate', target: 'signing key' }],
      [
        'POST',
        'catalog/tool/crm_me/disable',
        {},
        { method: 'admin/catalog.disable', target: 'crm_me', arguments: { kind: 'tool' } },
      ],
      ['POST', 'catalog/tool/crm_me/enable', {}, { method: 'admin/catalog.enable', target: 'crm_me' }],
      [
        'POST',
        'catalog/tool/no_such_tool/disable',
        {},
        { method: 'admin/catalog.disable', target: 'no_such_tool', outcome: 'not_found', errorCode: 404 },
      ],
      [
        'POST',
        'connections/revoke',
        { subject: 'bob' },
        { method: 'admin/connections.revoke', target: 'bob', arguments: { subject: 'bob', revoked: 0 } },
      ],
      [
        'POST',
        'policies',
        { policies: [{ id: 'broken', condition: 'args.a <' }] },
        { method: 'admin/policies.replace', target: 'governance.policies', outcome: 'invalid', errorCode: 400 },
      ],
      [
        'POST',
        'servers/upstreams',
        { name: 'wiki', transport: { type: 'http', url: 'not a url', headers: { 'x-api-key': UPSTREAM_SECRET } } },
        {
          method: 'admin/servers.upsert',
          target: 'wiki',
          outcome: 'invalid',
          errorCode: 422,
          arguments: { kind: 'upstream' },
        },
      ],
      [
        'POST',
        'servers/composed',
        { name: 'crm-only', path: '/mcp/crm', select: [{ from: 'local', entries: ['crm_*'] }] },
        { method: 'admin/servers.upsert', target: 'crm-only', outcome: 'ok' },
      ],
      [
        'DELETE',
        'servers/composed/crm-only',
        undefined,
        { method: 'admin/servers.remove', target: 'crm-only', outcome: 'ok' },
      ],
      [
        'DELETE',
        'servers/composed/crm-only',
        undefined,
        { method: 'admin/servers.remove', target: 'crm-only', outcome: 'not_found', errorCode: 404 },
      ],
    ];
    for (const [method, path, body, expected] of writes) {
      const before = Date.now();
      const answer = await admin(method, path, { body });
      expect({ path, status: answer.status }).toEqual({ path, status: expected.errorCode ?? 200 });
      const record = await recordOf(
        expected.method!,
        (record) =>
          Date.parse(record.time) >= before - 5 &&
          record.target === expected.target &&
          record.outcome === (expected.outcome ?? 'ok'),
      );
      expect({ path, record }).toEqual({
        path,
        record: expect.objectContaining({
          principal: 'dana',
          transport: 'http',
          outcome: 'ok',
          errorCode: null,
          ...expected,
          arguments: expect.objectContaining((expected.arguments as object) ?? {}),
        }),
      });
    }
    // The rotated key's id is told, never the key; no record holds the upstream's credential.
    const rotated = await recordOf('admin/oauth.keys.rotate');
    expect(Object.keys(rotated.arguments as object).sort()).toEqual(['activatesAt', 'kid']);
    const trail = JSON.stringify(desk.records('admin/servers.upsert'));
    expect(trail).not.toContain(UPSTREAM_SECRET);
  });

  it.each([
    ['no credential', { as: '' }, 401, { outcome: 'unauthenticated', principal: null }],
    ['someone who is no administrator', { as: 'bob', roles: [] }, 403, { outcome: 'denied', principal: 'bob' }],
    [
      'a page of another origin (the admin’s browser, CSRF)',
      { headers: { origin: 'https://evil.example' } },
      403,
      { outcome: 'denied', error: expect.stringContaining('Origin "https://evil.example" is not allowed') },
    ],
    [
      'a form post (no JSON: a cross-site form needs no preflight)',
      { body: 'subject=alice', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
      415,
      { outcome: 'invalid', error: 'Send the request as Content-Type: application/json' },
    ],
  ] as const)('refuses and records a revocation of sign-ins by %s', async (_who, call, status, expected) => {
    const before = Date.now();
    const answer = await admin('POST', 'oauth/revoke', { body: { subject: 'carol' }, ...call } as AdminCall);
    expect(answer.status).toBe(status);
    const record = await recordOf(
      'admin/oauth.revoke',
      (record) => Date.parse(record.time) >= before - 5 && record.errorCode === status,
    );
    expect(record).toMatchObject({ target: 'admin API', transport: 'http', ...expected });
    // Nothing was revoked on its behalf.
    expect(desk.records('admin/oauth.revoke').filter((record) => record.target === 'carol')).toEqual([]);
  });

  it("shows administrators the records in the dashboard's audit panel, by principal and action", async () => {
    await admin('POST', 'oauth/revoke', { body: { grantId: 'g-1' } });
    await waitFor(() => desk.records('admin/oauth.revoke').some((record) => record.target === 'g-1'));
    const page = await admin('GET', `audit?principal=dana&method=${encodeURIComponent('admin/oauth.revoke')}`);
    expect(page.status).toBe(200);
    const records = page.body.records as AuditRecord[];
    expect(records[0]).toMatchObject({ principal: 'dana', method: 'admin/oauth.revoke', target: 'g-1' });
    expect(records.every((record) => record.method === 'admin/oauth.revoke' && record.principal === 'dana')).toBe(true);
  });
});

interface AdminCall {
  /** Who calls (`''`: no credential). @default 'dana' */
  as?: string;
  roles?: string[];
  body?: unknown;
  headers?: Record<string, string>;
}
