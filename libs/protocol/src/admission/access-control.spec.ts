import type { McpPrincipal } from '#libs/core';
import { ToolRegistry, type RegisteredTool } from '#libs/catalog';
import { ScopeAndRolePolicy } from '#libs/security';
import type { ProtocolExtension } from '../eras/protocol-extension';
import { AccessControl } from './access-control';

/** An extension whose clients call tools by their own server's names, as MCP Apps views do. */
const VIEWS: ProtocolExtension = { id: 'example/views', settings: () => ({}), callsByOwnName: true };
const RENDERS_VIEWS = { clientCapabilities: { extensions: { 'example/views': {} } } };
const RENDERS_NONE = { clientCapabilities: {} };

const upstreamTool = (upstream: string, own: string, scopes: string[] = []) => {
  const name = `${upstream}__${own}`;
  return {
    key: name,
    name,
    where: `upstream ${upstream}`,
    definition: { name, inputSchema: { type: 'object' } },
    access: { scopes, roles: [] },
    origin: { kind: 'upstream', name: upstream, ownName: own },
  } as unknown as RegisteredTool;
};
const principal = (...scopes: string[]): McpPrincipal => ({ id: 'p', scopes, roles: [], claims: {} });

describe('AccessControl.meantByOwnName (a view behind a gateway calls its server’s tool by its own name)', () => {
  const registry = new ToolRegistry();
  registry.add([
    upstreamTool('basic', 'get-time'),
    upstreamTool('clock', 'get-time', ['clock']),
    upstreamTool('basic', 'echo'),
  ]);
  const access = new AccessControl(new ScopeAndRolePolicy(), [VIEWS]);

  it('finds the one tool of that own name the caller may use, for a client of the extension only', () => {
    expect(
      access.meantByOwnName(principal(), registry.byOwnName('get-time'), RENDERS_VIEWS).map((t) => t.name),
    ).toEqual(['basic__get-time']);
    expect(access.meantByOwnName(principal(), registry.byOwnName('get-time'), RENDERS_NONE)).toEqual([]);
    expect(registry.byOwnName('basic__get-time')).toEqual([]);
  });

  it('gives every tool of that name a caller who may use several may mean: ambiguous', () => {
    expect(
      access.meantByOwnName(principal('clock'), registry.byOwnName('get-time'), RENDERS_VIEWS).map((t) => t.name),
    ).toEqual(['basic__get-time', 'clock__get-time']);
  });

  it('forgets a tool removed from the catalog', () => {
    registry.remove('basic__echo');
    expect(registry.byOwnName('echo')).toEqual([]);
  });
});
