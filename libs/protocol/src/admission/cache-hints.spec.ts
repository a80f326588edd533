import { readCacheOption, type McpCacheOptions, type McpPrincipal } from '#libs/core';
import { OPEN_ACCESS, ToolRegistry, type RegisteredTool } from '#libs/catalog';
import { ScopeAndRolePolicy, type McpAccessPolicy } from '#libs/security';
import { resolveProtocolOptions } from '../options/protocol.options';
import { AccessControl } from './access-control';
import { CacheHints } from './cache-hints';

const ANYONE: McpPrincipal = { id: 'anyone', scopes: [], roles: [], claims: {} };
const ADMIN: McpPrincipal = { id: 'root', scopes: [], roles: ['admin'], claims: {} };

/** A tool as the catalog registers it, with the given `cache` option and roles. */
function tool(name: string, cache?: McpCacheOptions, roles: string[] = []): RegisteredTool {
  const hints = readCacheOption(cache, (problem) => {
    throw new Error(problem);
  });
  return {
    key: name,
    name,
    where: `Spec.${name}`,
    definition: { name, inputSchema: { type: 'object' } },
    access: roles.length > 0 ? { scopes: [], roles } : OPEN_ACCESS,
    ...(hints && { cache: hints }),
  } as unknown as RegisteredTool;
}

function hintsWith(defaults?: McpCacheOptions, policy: McpAccessPolicy = new ScopeAndRolePolicy()) {
  const options = resolveProtocolOptions({ name: 'spec', version: '1', cache: defaults }, (key, problem) => {
    throw new Error(`${key} ${problem}`);
  });
  const access = new AccessControl(policy);
  return { hints: new CacheHints(options, access), access };
}

function listOf(...tools: RegisteredTool[]): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(tools);
  return registry;
}

describe('CacheHints', () => {
  it('gives none when neither the module nor any entry configures caching (the dispatcher default applies)', () => {
    const { hints, access } = hintsWith();
    const list = listOf(tool('a'), tool('b'));
    expect(hints.ofList(list, access.view(ANYONE))).toBeUndefined();
    expect(hints.ofEntry(tool('c'))).toBeUndefined();
  });

  it('takes the shortest ttl of the entries, public when every entry is public and open to all', () => {
    const { hints, access } = hintsWith();
    const list = listOf(tool('a', { ttlMs: 60_000, scope: 'public' }), tool('b', { ttlMs: 5_000, scope: 'public' }));
    expect(hints.ofList(list, access.view(ANYONE))).toEqual({ ttlMs: 5_000, scope: 'public' });
  });

  it('is private as soon as one entry is private, or has no option and no module default', () => {
    const { hints, access } = hintsWith();
    const scoped = listOf(tool('a', { ttlMs: 60_000, scope: 'public' }), tool('b', { ttlMs: 60_000 }));
    expect(hints.ofList(scoped, access.view(ANYONE))).toEqual({ ttlMs: 60_000, scope: 'private' });
    const unconfigured = listOf(tool('a', { ttlMs: 60_000, scope: 'public' }), tool('b'));
    expect(hints.ofList(unconfigured, access.view(ANYONE))).toEqual({ ttlMs: 0, scope: 'private' });
  });

  it('uses the module default for entries without an option of their own', () => {
    const { hints, access } = hintsWith({ ttlMs: 30_000, scope: 'public' });
    const list = listOf(tool('a'), tool('b', { ttlMs: 90_000, scope: 'public' }));
    expect(hints.ofList(list, access.view(ANYONE))).toEqual({ ttlMs: 30_000, scope: 'public' });
    expect(hints.ofList(new ToolRegistry(), access.view(ANYONE))).toEqual({ ttlMs: 30_000, scope: 'public' });
  });

  it('makes a list private when authorization filters it, for the caller who sees all of it too', () => {
    const { hints, access } = hintsWith({ ttlMs: 30_000, scope: 'public' });
    const list = listOf(tool('a'), tool('admin_only', { ttlMs: 1_000, scope: 'public' }, ['admin']));
    // The admin's unfiltered view would reveal admin_only to anyone a shared cache served it to.
    expect(hints.ofList(list, access.view(ADMIN))).toEqual({ ttlMs: 1_000, scope: 'private' });
    // The shortest ttl is among the entries this caller sees.
    expect(hints.ofList(list, access.view(ANYONE))).toEqual({ ttlMs: 30_000, scope: 'private' });
  });

  it('follows the list as it changes', () => {
    const { hints, access } = hintsWith();
    const list = listOf(tool('a', { ttlMs: 60_000, scope: 'public' }));
    expect(hints.ofList(list, access.view(ANYONE))).toEqual({ ttlMs: 60_000, scope: 'public' });
    list.add([tool('b', { ttlMs: 10 })]);
    expect(hints.ofList(list, access.view(ANYONE))).toEqual({ ttlMs: 10, scope: 'private' });
    list.setEnabled('b', false);
    expect(hints.ofList(list, access.view(ANYONE))).toEqual({ ttlMs: 60_000, scope: 'public' });
  });

  it('never marks public what a policy cannot say is open to everyone', () => {
    const policy: McpAccessPolicy = { allows: () => true, visibilityKey: () => 'all' };
    const { hints, access } = hintsWith(undefined, policy);
    const list = listOf(tool('a', { ttlMs: 60_000, scope: 'public' }));
    expect(hints.ofList(list, access.view(ANYONE))).toEqual({ ttlMs: 60_000, scope: 'private' });
    expect(hints.ofEntry(tool('r', { ttlMs: 5, scope: 'public' }))).toEqual({ ttlMs: 5, scope: 'private' });
  });

  it("gives a read its entry's hints, private when the entry is restricted", () => {
    const { hints } = hintsWith({ ttlMs: 1_000 });
    expect(hints.ofEntry(tool('r', { ttlMs: 5, scope: 'public' }))).toEqual({ ttlMs: 5, scope: 'public' });
    expect(hints.ofEntry(tool('r', { ttlMs: 5, scope: 'public' }, ['admin']))).toEqual({ ttlMs: 5, scope: 'private' });
    expect(hints.ofEntry(tool('r'))).toEqual({ ttlMs: 1_000, scope: 'private' });
  });
});
