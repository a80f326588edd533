import type { McpPrincipal } from '#libs/core';
import { namePattern, serverSelection } from './server-selection';

const caller = (scopes: string[] = [], roles: string[] = []): McpPrincipal => ({ id: 'p', scopes, roles, claims: {} });

const items = [
  { from: 'upstream' as const, name: 'ledger', entries: ['ledger__get_*'] },
  { from: 'local' as const, entries: ['search_customers'], scopes: ['crm'] },
  { from: 'api' as const, roles: ['auditor'] },
];

describe('serverSelection', () => {
  const selection = serverSelection({ name: 'finance', path: '/mcp/finance', title: 'Finance', select: items });

  it('selects by origin, origin name and name pattern, each item with its own scopes and roles', () => {
    const upstream = (key: string, name = 'ledger') => ({ key, origin: { kind: 'upstream' as const, name } });
    expect(selection.selects(upstream('ledger__get_entry'), caller())).toBe(true);
    expect(selection.selects(upstream('ledger__delete_entry'), caller())).toBe(false);
    expect(selection.selects(upstream('ledger__get_entry', 'other'), caller())).toBe(false);
    // Local entries carry no origin.
    expect(selection.selects({ key: 'search_customers' }, caller())).toBe(false);
    expect(selection.selects({ key: 'search_customers' }, caller(['crm']))).toBe(true);
    expect(selection.selects({ key: 'search_customers', origin: { kind: 'rest' } }, caller(['crm']))).toBe(false);
    const api = { key: 'any_op', origin: { kind: 'api' as const, name: 'billing' } };
    expect(selection.selects(api, caller())).toBe(false);
    expect(selection.selects(api, caller([], ['auditor']))).toBe(true);
  });

  it('is named, described and keyed by what it serves', () => {
    expect(selection.info).toEqual({ name: 'finance', title: 'Finance' });
    const same = serverSelection({ name: 'finance', path: '/mcp/other', title: 'Finance', select: [...items] });
    expect(same.key).toBe(selection.key);
    const changed = serverSelection({
      name: 'finance',
      path: '/mcp/finance',
      title: 'Finance',
      select: [{ from: 'local' }],
    });
    expect(changed.key).not.toBe(selection.key);
  });

  it('reads * as any characters and nothing else as special', () => {
    expect(namePattern(['a.b*']).test('a.bc')).toBe(true);
    expect(namePattern(['a.b*']).test('axbc')).toBe(false);
    expect(namePattern(['x', 'y*']).test('yz')).toBe(true);
    expect(namePattern(['x']).test('xx')).toBe(false);
  });
});
