import { principalOf, type MatrixWorld } from './matrix-world';
import { recordOf } from './policies';
import type { PolicyId } from './surfaces';

/** The surface's id, and the principal of the matrix's administrator (its API key has the role `admin`). */
export const ADMIN_SURFACE = 'admin-api';
const ADMINISTRATOR = 'admin';

/** A composed virtual server of the desk's own search tools, at a path of its own. */
const composed = (name: string) => ({
  name,
  path: `/mcp/${name}`,
  select: [{ from: 'local', entries: ['search_*'] }],
});

/** An admin API request to the desk with the headers of a credential (none, another's, the administrator's). */
async function adminApi(
  world: MatrixWorld,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  credential: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${world.host('desk').base}/admin/api/${path}`, {
    method,
    headers: { ...credential, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const administrator = (world: MatrixWorld) => ({ 'x-api-key': world.keyOf(ADMINISTRATOR) });

/** The names of the desk's composed virtual servers, as its administrator reads them. */
async function composedNames(world: MatrixWorld): Promise<string[]> {
  const { body } = await adminApi(world, 'GET', 'servers/composed', administrator(world));
  return (body.servers as { name: string }[]).map((server) => server.name);
}

/**
 * The cells of the admin API's row: an administrator acting on the desk (adding and removing a
 * composed virtual server, switching a prompt off and on) instead of a call. Each write is held
 * to the same promise as a call: no or an invalid credential refused, and someone who is not an
 * administrator too, before anything changes; invalid input named and nothing changed; and one
 * record naming the administrator, the action, the target and the outcome.
 */
export const ADMIN_CELLS: Partial<Record<PolicyId, (world: MatrixWorld) => Promise<void>>> = {
  async credential(world) {
    const add = (credential: Record<string, string>) =>
      adminApi(world, 'POST', 'servers/composed', credential, composed('matrix-refused'));
    expect((await add({})).status).toBe(401);
    expect((await add({ 'x-api-key': 'mk-nobody-0123456789abcdef01234567' })).status).toBe(401);
    // Every scope of the desk, but not the role admin.
    const writer = principalOf('caller', ADMIN_SURFACE);
    expect(await add({ 'x-api-key': world.keyOf(writer) })).toMatchObject({
      status: 403,
      body: { error: 'forbidden' },
    });
    const refused = await recordOf(
      world,
      'desk',
      (record) => record.method === 'admin/servers.upsert' && record.principal === writer,
    );
    expect(refused).toMatchObject({ outcome: 'denied', errorCode: 403, target: 'virtual servers API' });
    expect(await composedNames(world)).not.toContain('matrix-refused');
  },

  async arguments(world) {
    const answer = await adminApi(world, 'POST', 'servers/composed', administrator(world), {
      name: 'matrix-invalid',
      path: 'not-a-path',
      select: 'everything',
      colour: 'blue',
    });
    expect(answer.status).toBe(422);
    const problems = (answer.body.problems as { where: string }[]).map((problem) => problem.where);
    for (const field of ['colour', 'path', 'select'])
      expect(problems).toContainEqual(expect.stringMatching(new RegExp(`^servers\\[\\d+\\]\\.${field}$`)));
    expect(await composedNames(world)).not.toContain('matrix-invalid');
    const record = await recordOf(
      world,
      'desk',
      (entry) => entry.method === 'admin/servers.upsert' && entry.target === 'matrix-invalid',
    );
    expect(record).toMatchObject({ principal: ADMINISTRATOR, outcome: 'invalid', errorCode: 422 });
  },

  async audit(world) {
    const name = 'matrix-admin';
    expect((await adminApi(world, 'POST', 'servers/composed', administrator(world), composed(name))).status).toBe(200);
    expect((await adminApi(world, 'DELETE', `servers/composed/${name}`, administrator(world))).status).toBe(200);
    for (const action of ['disable', 'enable'])
      expect(
        (await adminApi(world, 'POST', `catalog/prompt/triage_ticket/${action}`, administrator(world), {})).status,
      ).toBe(200);
    const expected: [method: string, target: string][] = [
      ['admin/servers.upsert', name],
      ['admin/servers.remove', name],
      ['admin/catalog.disable', 'triage_ticket'],
      ['admin/catalog.enable', 'triage_ticket'],
    ];
    for (const [method, target] of expected) {
      const record = await recordOf(
        world,
        'desk',
        (entry) => entry.method === method && entry.target === target && entry.outcome === 'ok',
      );
      expect(record).toMatchObject({ principal: ADMINISTRATOR, transport: 'http', errorCode: null });
    }
  },
};
