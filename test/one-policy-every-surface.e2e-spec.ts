import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MCP_TRANSPORT_KINDS } from '#libs/core';
import { AUDIT_OUTCOMES } from '#libs/security';
import { MatrixWorld, principalOf } from './matrix/matrix-world';
import { POLICIES } from './matrix/policies';
import { inProcessDesk, SURFACES, type Surface } from './matrix/surfaces';
import { PLATFORMS } from './support/fixture-app';

const run = promisify(execFile);
const VERIFY = join(__dirname, '..', 'dist', 'apps', 'audit-verify', 'src', 'main.js');

// Four desk processes and Redis start once; each cell is a few calls (a stop restarts its host).
jest.setTimeout(60_000);

/** How a call ends by itself rather than by a policy: no policy claims these outcomes. */
const CALL_OWN_OUTCOMES = ['tool_error', 'error', 'timeout'];
/** Every way a call reaches something other than a provider's tool, beside the tool itself; and the admin API (no call). */
const REACHES: Surface['reaches'][] = [
  'tool',
  'rest-route',
  'rest-api',
  'upstream',
  'call_tool',
  'view',
  'http-route',
  'admin',
];

/** docs/security.md's table of the matrix (its header names the policies): per surface, per policy, `✓` or `n/a …`. */
function documentedMatrix(): Map<string, Map<string, string>> {
  const text = readFileSync(join(__dirname, '..', 'docs', 'security.md'), 'utf8');
  const lines = text.slice(text.indexOf('## One policy, every surface')).split('\n');
  const start = lines.findIndex((line) => line.startsWith('| surface | `'));
  const cellsOf = (line: string) =>
    line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim().replace(/^`(.*)`$/, '$1'));
  const [, ...policies] = cellsOf(lines[start]);
  const rows: string[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line);
  }
  return new Map(
    rows.map((row) => {
      const [surface, ...cells] = cellsOf(row);
      return [surface, new Map(cells.map((cell, index) => [policies[index], cell]))];
    }),
  );
}

/**
 * The promise a security review signs off — every call, on every surface and at every moment of
 * its life, is authenticated, authorized, approved when it must be, throttled and audited — as a
 * test: every policy on every surface, each cell asserting the behaviour on real processes and
 * real clients. A surface or a policy the matrix does not know fails the first describe.
 */
describe('one policy, every surface', () => {
  const world = new MatrixWorld(SURFACES.map((surface) => surface.id));

  beforeAll(() => world.start(), 120_000);
  afterAll(async () => {
    await inProcessDesk.close();
    await world.stop();
  });

  describe('the matrix knows every surface and every policy there is', () => {
    it('has a surface for each transport, each era and mode over HTTP, each platform, each way a call reaches on', () => {
      const covered = (pick: (surface: Surface) => string) => new Set(SURFACES.map(pick));
      expect(
        [...MCP_TRANSPORT_KINDS].filter((transport) => !covered((surface) => surface.transport).has(transport)),
      ).toEqual([]);
      // The calls over MCP (a plain HTTP client of the app's routes speaks no MCP revision; the
      // admin API is no call: it has no era or mode).
      const http = SURFACES.filter(
        (surface) => surface.transport === 'http' && surface.era !== '-' && surface.reaches !== 'admin',
      );
      expect(new Set(http.map((surface) => surface.era))).toEqual(new Set(['2025-11-25', '2026-07-28']));
      expect(new Set(http.map((surface) => surface.mode))).toEqual(new Set(['stateful', 'stateless']));
      expect(new Set(http.map((surface) => surface.platform))).toEqual(
        new Set(PLATFORMS.map(([platform]) => platform)),
      );
      expect(new Set(SURFACES.map((surface) => surface.reaches))).toEqual(new Set(REACHES));
      // A view's calls come through the HTTP platform's transport: each platform has its view surface.
      expect(
        new Set(SURFACES.filter((surface) => surface.reaches === 'view').map((surface) => surface.platform)),
      ).toEqual(new Set(PLATFORMS.map(([platform]) => platform)));
    });

    it('reaches every tool the desk serves through one of those ways', async () => {
      const desk = world.host('desk');
      const response = await fetch(`${desk.base}/admin/api/catalog`, {
        headers: { 'x-api-key': world.keyOf('admin') },
      });
      expect(response.status).toBe(200);
      const { tools } = (await response.json()) as { tools: { name: string }[] };
      const reached = (name: string) =>
        name.startsWith('deskb__') ||
        name.startsWith('deskv__') || // the same upstream, added at run time (a virtual server)
        name.startsWith('deskb_api_') ||
        /^[a-z]+(_[a-z]+)+$/.test(name) || // the providers' tools (snake_case)
        /^[a-z]+[A-Z][A-Za-z]+$/.test(name); // the REST routes (operationIds)
      expect(tools.map((tool) => tool.name).filter((name) => !reached(name))).toEqual([]);
    });

    it('has a policy for every refusal the audit trail can record', () => {
      const claimed = new Set([...POLICIES.flatMap((policy) => policy.outcomes), ...CALL_OWN_OUTCOMES]);
      expect(AUDIT_OUTCOMES.filter((outcome) => !claimed.has(outcome))).toEqual([]);
    });

    it('is documented cell by cell in docs/security.md, each n/a with its reason', () => {
      const documented = documentedMatrix();
      expect([...documented.keys()]).toEqual(SURFACES.map((surface) => surface.id));
      for (const surface of SURFACES) {
        const cells = documented.get(surface.id)!;
        expect([...cells.keys()]).toEqual(POLICIES.map((policy) => policy.id));
        for (const policy of POLICIES) {
          const reason = surface.notApplicable[policy.id];
          expect({ cell: `${surface.id} × ${policy.id}`, text: cells.get(policy.id) }).toEqual({
            cell: `${surface.id} × ${policy.id}`,
            text: reason ? expect.stringMatching(/^n\/a/) : '✓',
          });
        }
      }
    });
  });

  describe.each(POLICIES.map((policy) => [policy.id, policy] as const))('%s', (_id, policy) => {
    const applicable = SURFACES.filter((surface) => !surface.notApplicable[policy.id]);
    const notApplicable = SURFACES.filter((surface) => surface.notApplicable[policy.id]);
    it.each(applicable.map((surface) => [surface.id, surface] as const))('holds on %s', async (_surface, surface) => {
      await policy.run(surface, world);
    });
    if (notApplicable.length > 0)
      it.each(notApplicable.map((surface) => [surface.id, surface] as const))(
        'does not apply on %s, for a reason the docs give',
        (_surface, surface) => {
          const reason = surface.notApplicable[policy.id]!;
          expect(readFileSync(join(__dirname, '..', 'docs', 'security.md'), 'utf8')).toContain(reason);
        },
      );
  });

  it('leaves every trail verifiable, and every record of a caller on its own surface', async () => {
    for (const surface of SURFACES) {
      // A plain HTTP request to a route is recorded as one (`http/route`), not as a tool call.
      const method = surface.reaches === 'http-route' ? 'http/route' : 'tools/call';
      const mine = world
        .trail(surface.trail)
        .filter((record) => record.method === method && record.principal === principalOf('caller', surface.id));
      expect({ surface: surface.id, transports: [...new Set(mine.map((record) => record.transport))] }).toEqual({
        surface: surface.id,
        // Over stdio the caller is the local operator, whose records the other cells' are; the
        // admin API's cells are an administrator's writes, no call.
        transports: surface.id === 'stdio' || surface.reaches === 'admin' ? [] : [surface.transport],
      });
    }
    // Written by processes that stopped, started again and went on with the chain: each verifies.
    for (const trail of new Set(SURFACES.flatMap((surface) => [surface.trail, surface.onwardTrail ?? surface.trail]))) {
      const { stdout } = await run(process.execPath, [VERIFY, world.auditFile(trail)]);
      expect(stdout).toMatch(/^OK: \d+ record\(s\) in 1 chain\(s\)/);
    }
  });
});
